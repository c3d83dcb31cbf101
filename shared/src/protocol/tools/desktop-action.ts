import * as z from 'zod';
import { DESKTOP_ACTIONS, MOUSE_BUTTONS } from '../desktop.js';
import { envelopeSchema, LooseData, type ToolDef } from './envelope.js';
import { DesktopSessionId, MaxLongEdge, RemoteSessionId } from './desktop-common.js';

const Int = z.number();

/**
 * `desktop_action` (issue 15 §6): one input action at image pixels of a live observation. The
 * fields each action needs are checked by the driver (flat schema: every model API accepts it).
 */
export const desktopActionTool = {
  name: 'desktop_action',
  title: 'Desktop action',
  description:
    'Input at image pixels of observation_id: move/click/double_click (x,y), scroll (dx,dy), drag (x,y to to_x,to_y), key_press (key), hotkey (keys), type_text (text). ' +
    'Keys: A-Z 0-9 F1-F12 CTRL ALT SHIFT META ENTER ESC TAB BACKSPACE DELETE SPACE UP DOWN LEFT RIGHT HOME END PAGE_UP PAGE_DOWN. ' +
    'A repeated operation_id returns the first outcome.',
  input: z.object({
    remote_session_id: RemoteSessionId,
    desktop_session_id: DesktopSessionId,
    observation_id: z.string(),
    action: z.enum(DESKTOP_ACTIONS),
    x: Int.optional(),
    y: Int.optional(),
    button: z.enum(MOUSE_BUTTONS).optional(),
    to_x: Int.optional(),
    to_y: Int.optional(),
    dx: Int.optional(),
    dy: Int.optional(),
    key: z.string().optional(),
    keys: z.array(z.string()).optional(),
    text: z.string().optional(),
    operation_id: z.string().optional(),
    observe_after: z.boolean().default(true),
    max_long_edge: MaxLongEdge,
  }),
  output: envelopeSchema(LooseData),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
} satisfies ToolDef;
