import * as z from 'zod';
import { DesktopLimits } from '../../constants.js';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { RemoteSessionId } from './desktop-common.js';

/**
 * `desktop_get_session` (issue 15): a desktop session's state, or a view's outcome (waiting up to
 * `wait_ms` for the person). Exactly one of `desktop_session_id` and `view_id` (checked by the daemon).
 */
export const desktopGetSessionTool = {
  name: 'desktop_get_session',
  title: 'Desktop session',
  description: 'State of desktop_session_id, or of view_id (waits wait_ms for the person). Give one.',
  input: z.object({
    remote_session_id: RemoteSessionId,
    desktop_session_id: z.string().optional(),
    view_id: z.string().optional(),
    wait_ms: z.number().int().min(0).max(DesktopLimits.VIEW_WAIT_MAX_MS).default(DesktopLimits.VIEW_WAIT_MAX_MS),
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} satisfies ToolDef;
