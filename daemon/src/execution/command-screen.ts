import type { CommandRecord, SnapshotResult } from '@holdfast/shared/protocol';
import type { GuardianLink } from '../sessions/link.js';
import { capHead } from './rendered-output.js';

/** Lines of the awaiting-input screen kept at most (the last ones: the prompt is at the bottom). */
export const SCREEN_MAX_LINES = 40;
/** Bytes of the awaiting-input screen kept at most. */
export const SCREEN_MAX_BYTES = 4096;

/**
 * The screen of a command that waits for input (issue 8): only the region its own output drew —
 * a full-screen program's whole screen, else what it printed since it started — never earlier
 * commands' output or the line that started it, capped to the last {@link SCREEN_MAX_LINES} lines
 * and {@link SCREEN_MAX_BYTES} bytes. A guardian without the `snapshot.region` feature (older
 * build) gives its whole screen, capped the same way.
 */
export async function commandScreen(link: GuardianLink, rec: CommandRecord): Promise<string> {
  const region = link.features.includes('snapshot.region');
  return screenText(await link.snapshot(region ? { from: rec.outputStart } : {}));
}

/**
 * The text of a snapshot as a command's screen: spaces a program wrote past a line's text are
 * dropped (vim and curses programs clear rows by writing spaces to the last column; kept, a
 * 200-column terminal's padding filled the 4 KiB cap with blanks and pushed the file's text out),
 * except up to the cursor on its line (`Name? ` keeps the space the answer follows); trailing
 * blank lines are dropped; then capped as {@link commandScreen} says.
 */
export function screenText(snap: Pick<SnapshotResult, 'lines' | 'cursor'>): string {
  const lines = snap.lines.map((line, y) => {
    const text = line.trimEnd();
    return y === snap.cursor.y && snap.cursor.x > text.length ? line.slice(0, snap.cursor.x) : text;
  });
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  return capHead(lines.slice(-SCREEN_MAX_LINES).join('\n'), SCREEN_MAX_BYTES).text;
}
