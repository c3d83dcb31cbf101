import * as z from 'zod';
import { DesktopLimits } from '../../constants.js';

/**
 * Argument schemas shared by the desktop tools (issue 15). They are lean on purpose: every
 * desktop tool's listing counts against the `tools/list` budget (the manual is docs/desktop.md),
 * and the driver checks ranges and the fields each action needs (shared/protocol/desktop.ts).
 */
export const RemoteSessionId = z.string();
export const DesktopSessionId = z.string();
export const MaxLongEdge = z.number().optional().describe(`px, default ${DesktopLimits.SCREENSHOT_LONG_EDGE_DEFAULT_PX}, max ${DesktopLimits.SCREENSHOT_LONG_EDGE_MAX_PX}`);
const Px = z.number();
export const SourceRect = z.object({ x: Px, y: Px, width: Px, height: Px }).optional();
