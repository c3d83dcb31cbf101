import type { SerializeAddon } from '@xterm/addon-serialize';
import type { Terminal } from '@xterm/headless';
import type { SegmentLog, SnapshotResult } from '@holdfast/shared/protocol';
import { ScreenLimits } from './constants.js';
import { log } from './log.js';

/**
 * The current screen of the PTY (DESIGN §5): a headless xterm fed from the clean PTY log, with
 * the serialize addon for `attach` repaints.
 *
 * Feeding xterm is CPU-heavy, so the model is LAZY: nothing happens per PTY chunk except a timer
 * refresh. It catches up from the log when a snapshot or an awaiting-input check needs it, or —
 * once the screen has been asked for at least once — after the PTY has been quiet for
 * {@link ScreenLimits.QUIET_CATCH_UP_MS}. The xterm code itself is loaded on first use: a
 * session nobody looks at never pays its memory (guardian idle RSS). When it is further
 * behind than {@link ScreenLimits.MAX_BEHIND_BYTES} it resets and replays only the last
 * {@link ScreenLimits.REPLAY_TAIL_BYTES} (a flood is never slowed down by the screen model).
 * Resizes are queued at the log offset where they happened and applied in stream order.
 */
export class ScreenModel {
  private term: Terminal | null = null;
  private serializer: SerializeAddon | null = null;
  private lib: Promise<XtermLib> | null = null;
  /** Clean PTY offset the model has consumed. */
  private fed = 0;
  private cols: number;
  private rows: number;
  private readonly resizes: Array<{ offset: number; cols: number; rows: number }> = [];
  private running: Promise<void> | null = null;
  private quietTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    private readonly log: SegmentLog,
    cols: number,
    rows: number,
  ) {
    this.cols = cols;
    this.rows = rows;
  }

  /** Offset the model reflects right now (without catching up). */
  get offset(): number {
    return this.fed;
  }

  /** Call on every PTY chunk: (re)arms the quiet-period catch-up. Cheap. */
  noteOutput(): void {
    if (this.disposed || !this.term) return;
    if (this.quietTimer) {
      this.quietTimer.refresh();
      return;
    }
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      void this.catchUp().catch((err) => log('screen catch-up failed', err));
    }, ScreenLimits.QUIET_CATCH_UP_MS);
    this.quietTimer.unref();
  }

  /** Records a PTY resize at the current log offset. */
  resize(cols: number, rows: number): void {
    this.resizes.push({ offset: this.log.end, cols, rows });
  }

  /** Feeds the model up to the current end of the log. Concurrent callers share one run. */
  catchUp(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.running) return this.running.then(() => (this.fed < this.log.end ? this.catchUp() : undefined));
    this.running = this.feed().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Catches up, then renders the screen (DESIGN §5 snapshot). */
  async snapshot(): Promise<SnapshotResult> {
    await this.catchUp();
    const term = await this.ensureTerm();
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < term.rows; y++) lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
    let ansi = '';
    try {
      ansi = this.serializer!.serialize({ scrollback: 0 });
    } catch (err) {
      log('screen serialize failed', err);
    }
    return { cols: term.cols, rows: term.rows, lines, ansi, cursor: { x: buf.cursorX, y: buf.cursorY }, offset: this.fed };
  }

  /**
   * The region of the screen drawn by the output from `from` on (issue 8: a command awaiting input
   * shows its own prompt, not earlier commands' output). While a full-screen program holds the
   * alternate screen, that whole screen is its region. Otherwise the output since `from` (at most
   * {@link ScreenLimits.REPLAY_TAIL_BYTES} of it) is replayed into a scratch terminal of the same
   * size, starting blank: its lines, trailing blank ones dropped, are the region.
   */
  async region(from: number): Promise<SnapshotResult> {
    const snap = await this.snapshot();
    const term = this.term!;
    if (term.buffer.active.type === 'alternate') return { ...snap, lines: trimTrailingBlank(snap.lines), region: { from } };
    const lib = await this.lib!;
    const scratch = new lib.Terminal({ cols: term.cols, rows: term.rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
    try {
      const end = this.fed;
      let at = Math.max(from, this.log.start, end - ScreenLimits.REPLAY_TAIL_BYTES);
      while (at < end) {
        const slice = this.log.read(at, Math.min(ScreenLimits.FEED_CHUNK_BYTES, end - at));
        if (slice.data.length === 0) break;
        await this.write(scratch, slice.data);
        at = slice.next;
      }
      const buf = scratch.buffer.active;
      const lines: string[] = [];
      for (let y = 0; y < scratch.rows; y++) lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
      return { ...snap, lines: trimTrailingBlank(lines), cursor: { x: buf.cursorX, y: buf.cursorY }, region: { from } };
    } finally {
      scratch.dispose();
    }
  }

  /**
   * What the screen says about input, after catching up (awaiting-input check): the text of the
   * cursor's line up to the cursor, and whether a full-screen program uses the alternate buffer.
   */
  async inputHints(): Promise<{ beforeCursor: string; alternateScreen: boolean }> {
    await this.catchUp();
    const term = await this.ensureTerm();
    const buf = term.buffer.active;
    const line = buf.getLine(buf.baseY + buf.cursorY)?.translateToString(false) ?? '';
    return { beforeCursor: line.slice(0, buf.cursorX), alternateScreen: buf.type === 'alternate' };
  }

  /** Stops timers and frees the terminal. */
  dispose(): void {
    this.disposed = true;
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
    this.term?.dispose();
    this.term = null;
  }

  private async ensureTerm(): Promise<Terminal> {
    if (this.term) return this.term;
    this.lib ??= loadXterm();
    const lib = await this.lib;
    if (this.term) return this.term;
    const term = new lib.Terminal({ cols: this.cols, rows: this.rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
    const ser = new lib.SerializeAddon();
    term.loadAddon(ser);
    this.term = term;
    this.serializer = ser;
    return term;
  }

  private write(term: Terminal, data: Uint8Array): Promise<void> {
    return new Promise((resolve) => term.write(data, resolve));
  }

  private applyResizesUpTo(term: Terminal, offset: number): void {
    while (this.resizes.length > 0 && this.resizes[0]!.offset <= offset) {
      const r = this.resizes.shift()!;
      this.cols = r.cols;
      this.rows = r.rows;
      term.resize(r.cols, r.rows);
    }
  }

  private async feed(): Promise<void> {
    let term = await this.ensureTerm();
    const end = this.log.end;
    if (end - this.fed > ScreenLimits.MAX_BEHIND_BYTES || this.fed < this.log.start) {
      // Too far behind (or the log rotated past us): start over from the tail.
      const from = Math.max(this.log.start, end - ScreenLimits.REPLAY_TAIL_BYTES);
      this.applyResizesUpTo(term, from);
      term.dispose();
      this.term = null;
      term = await this.ensureTerm();
      this.fed = from;
    }
    while (this.fed < end && !this.disposed) {
      const next = this.resizes[0];
      const stop = next && next.offset < end ? Math.max(next.offset, this.fed) : end;
      this.applyResizesUpTo(term, this.fed);
      if (stop <= this.fed) continue;
      const slice = this.log.read(this.fed, Math.min(ScreenLimits.FEED_CHUNK_BYTES, stop - this.fed));
      if (slice.data.length === 0) break;
      await this.write(term, slice.data);
      this.fed = slice.next;
    }
    this.applyResizesUpTo(term, this.fed);
  }
}

/** Drops blank lines at the end (a screen's unused rows). */
function trimTrailingBlank(lines: string[]): string[] {
  let n = lines.length;
  while (n > 0 && lines[n - 1]!.trim() === '') n--;
  return lines.slice(0, n);
}

interface XtermLib {
  Terminal: typeof Terminal;
  SerializeAddon: typeof SerializeAddon;
}

/** Loads @xterm/headless and the serialize addon (both CommonJS) on first use. */
async function loadXterm(): Promise<XtermLib> {
  const [headless, serialize] = await Promise.all([import('@xterm/headless'), import('@xterm/addon-serialize')]);
  const h = (headless as unknown as { default?: XtermLib }).default ?? (headless as unknown as XtermLib);
  const s = (serialize as unknown as { default?: XtermLib }).default ?? (serialize as unknown as XtermLib);
  return { Terminal: h.Terminal, SerializeAddon: s.SerializeAddon };
}
