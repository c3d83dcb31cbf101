import type { ToolCallResult } from '@holdfast/shared/control';
import type { DesktopSessionView, ObservationView, ScreenshotResult } from '@holdfast/shared/protocol';
import { action, type ToolOutcome } from '../envelope.js';

/** MCP image content of a PNG (base64). */
export function pngContent(png: Uint8Array): ToolCallResult['content'][number] {
  return { type: 'image', data: Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString('base64'), mimeType: 'image/png' };
}

/** One line about a desktop session for the text block. */
export function sessionLine(v: DesktopSessionView): string {
  const size = v.source_size ? ` ${v.source_size.width}x${v.source_size.height}` : '';
  const flags = [v.paused ? 'PAUSED by the person' : null, v.authorization === 'view' ? 'view only' : v.control_enabled ? 'control on' : 'control off'].filter(Boolean).join(', ');
  const why = v.state === 'closed' && v.closed_reason ? ` (${v.closed_reason})` : '';
  return `Desktop ${v.desktop_session_id} (${v.device}${v.x_display ? ` on ${v.x_display}` : ''}): ${v.state}${why}${size}, ${flags}.`;
}

/** One line about an observation for the text block. */
export function observationLine(o: ObservationView): string {
  const s = o.source_rect;
  return `Observation ${o.observation_id}: image ${o.image_size.width}x${o.image_size.height} of source ${s.width}x${s.height}+${s.x}+${s.y} (display ${o.display}, frame ${o.frame_id}, ${o.frame_age_ms} ms old); act within 30 s using image pixels.`;
}

/** A continuation that takes a new screenshot. */
export function screenshotAction(remoteSessionId: string, desktopSessionId: string, reason = 'take a screenshot to get a live observation_id'): ReturnType<typeof action> {
  return action('desktop_screenshot', { remote_session_id: remoteSessionId, desktop_session_id: desktopSessionId }, reason);
}

/** Adds a screenshot's image to an outcome. */
export function withImage(o: ToolOutcome, shot: ScreenshotResult | undefined): ToolOutcome {
  if (shot) o.extraContent = [...(o.extraContent ?? []), pngContent(shot.image)];
  return o;
}
