import { OutputLimits } from '@holdfast/shared/protocol';
import { parseDiagnostics, type Diagnostic, type DiagnosticFormat } from '../diagnostics/index.js';
import type { TaskRow } from '../store/tasks-repo.js';
import { action, callText, outcome, type ToolOutcome } from '../tools/envelope.js';
import type { ByteSource } from './byte-source.js';
import { capHead, headDroppedMarker, renderTail, taskLogUri, type RenderedRange } from './rendered-output.js';

/** Output repeated in the result's text block at most (the full capped text is in `data`), bytes. */
export const TEXT_BLOCK_OUTPUT_MAX_BYTES = OutputLimits.TEXT_BLOCK_MAX_BYTES;
/**
 * `max_bytes` of an `observe(view="logs")` page whose text fits the text block whole, for `streams`
 * streams (1: a terminal command, 2: a piped task's stdout and stderr), bytes: what the text notes
 * offer a client that shows the model only the text block (DESIGN §6.3). Rendering only removes
 * bytes (escape sequences, `\r` overwrites); 1 KiB is left for the headers.
 */
export function logsTextPageBytes(streams: number): number {
  return Math.floor((TEXT_BLOCK_OUTPUT_MAX_BYTES - 1024) / Math.max(1, streams));
}

/** Screen lines shown in the text block while a command awaits input. */
const SCREEN_LINES_SHOWN = 20;

/** Output offsets: the PTY (foreground commands) or each stream of a piped task. Absolute bytes. */
export interface OutputOffsets {
  pty?: number;
  stdout?: number;
  stderr?: number;
}

/** A task as the result builder sees it: its row (already synced with the guardian) and live facts. */
export interface TaskFacts {
  row: TaskRow;
  source: ByteSource;
  /** The foreground command went quiet at a prompt (issue 5 "awaiting input"). */
  awaitingInput?: boolean;
  /** The command's region of the screen (when awaiting input, issue 8). */
  screen?: string;
  /** Show output from here on (issue 8: what the caller has not seen); default: from the start. */
  from?: OutputOffsets;
}

/** An `execute` result and how far it showed the output (to continue from next time). */
export interface DescribedTask {
  outcome: ToolOutcome;
  shown: OutputOffsets;
}

function clamp(v: number | undefined, lo: number, hi: number): number {
  return Math.min(Math.max(v ?? lo, lo), Math.max(lo, hi));
}

/**
 * Builds the `execute` result for a task (issue 5, DESIGN §6.3): rendered output capped at 64 KiB
 * with the head dropped behind a marker naming the log's resource URI; `output` for PTY commands,
 * `stdout` and `stderr` apart for piped tasks (never the same text twice in `data`); the text block
 * repeats at most 8 KiB of it. Statuses: `succeeded` (finished, whatever its exit code), `accepted`
 * (still running or awaiting input, with attach/stdin/stop actions), `interrupted` (its session
 * ended under it), `failed` (it never started). Output starts at `from` (issue 8: `attach` sends
 * only what the caller has not seen; `output_offset`/`next_offset` say which bytes it covers);
 * diagnostics are always parsed from the whole output.
 */
export async function describeTask(f: TaskFacts): Promise<DescribedTask> {
  const { row } = f;
  const rs = row.session_id;
  const uri = taskLogUri(rs, row.id);
  const context = { remote_session_id: rs, execution_task_id: row.id, ...(row.purpose ? { purpose: row.purpose } : {}) };
  const running = row.state === 'running';
  const base: Record<string, unknown> = {
    execution_task_id: row.id,
    kind: row.kind,
    state: row.state,
    ...(row.origin === 'task' ? { task: row.task_name, command: row.command } : row.argv ? { argv: JSON.parse(row.argv) as string[] } : { command: row.command }),
    ...(row.cwd ? { cwd: row.cwd } : {}),
    exit_code: row.exit_code,
    ...(row.signal ? { signal: row.signal } : {}),
    awaiting_input: f.awaitingInput === true,
    started_at: row.started_at,
    ended_at: row.ended_at,
    ...(row.started_at ? { duration_ms: (row.ended_at ?? Date.now()) - row.started_at } : {}),
    log_uri: uri,
    ...(row.error ? { error: row.error } : {}),
  };
  const attach = action('execute', { action: 'attach', remote_session_id: rs, execution_task_id: row.id }, 'wait for it again');
  const continuation = running
    ? [
        attach,
        action('observe', { view: 'logs', remote_session_id: rs, execution_task_id: row.id }, 'read its output by offset'),
        action('execute', { action: 'stop', remote_session_id: rs, execution_task_id: row.id }, 'stop it (signals its whole process group)'),
      ]
    : [];

  let shown: string;
  let data: Record<string, unknown>;
  let truncated: boolean;
  let shownTo: OutputOffsets;
  /** The whole output (from its start), for diagnostics; null when what is shown already is. */
  let whole: (() => Promise<string>) | null = null;
  let skipped = 0;
  if (row.kind === 'foreground') {
    const start = row.pty_start ?? 0;
    const end = row.pty_end ?? (await f.source.end('pty'));
    const from = clamp(f.from?.pty, start, end);
    skipped = from - start;
    const out = await renderTail(f.source, 'pty', from, end);
    truncated = out.truncated;
    const output = (truncated ? headDroppedMarker(Buffer.byteLength(out.text), end - from, uri) : '') + out.text;
    data = { ...base, output, truncated, log_truncated: out.logTruncated, output_offset: from, next_offset: end };
    shown = out.text;
    shownTo = { pty: end };
    if (skipped > 0) whole = async () => (await renderTail(f.source, 'pty', start, end)).text;
  } else {
    const id = row.id;
    const outEnd = row.stdout_end ?? (await f.source.end(`task:${id}:stdout`));
    const errEnd = row.stderr_end ?? (await f.source.end(`task:${id}:stderr`));
    const outFrom = clamp(f.from?.stdout, 0, outEnd);
    const errFrom = clamp(f.from?.stderr, 0, errEnd);
    skipped = outFrom + errFrom;
    const [so, se] = await Promise.all([
      renderTail(f.source, `task:${id}:stdout`, outFrom, outEnd, OutputLimits.MODEL_TEXT_MAX_BYTES),
      renderTail(f.source, `task:${id}:stderr`, errFrom, errEnd, OutputLimits.MODEL_TEXT_MAX_BYTES),
    ]);
    const [stdout, stderr] = shareBudget(so, se);
    truncated = stdout.truncated || stderr.truncated;
    const marker = truncated ? headDroppedMarker(Buffer.byteLength(stdout.text) + Buffer.byteLength(stderr.text), outEnd - outFrom + errEnd - errFrom, uri) : '';
    data = {
      ...base,
      stdout: marker + stdout.text,
      stderr: stderr.text,
      truncated,
      log_truncated: so.logTruncated || se.logTruncated,
      ...(skipped > 0 ? { output_offsets: { stdout: outFrom, stderr: errFrom } } : {}),
      next_offsets: { stdout: outEnd, stderr: errEnd },
    };
    shown = stdout.text + (stderr.text ? `${stdout.text && !stdout.text.endsWith('\n') ? '\n' : ''}[stderr]\n${stderr.text}` : '');
    shownTo = { stdout: outEnd, stderr: errEnd };
    if (skipped > 0) {
      whole = async () => {
        const [a, b] = await Promise.all([renderTail(f.source, `task:${id}:stdout`, 0, outEnd), renderTail(f.source, `task:${id}:stderr`, 0, errEnd)]);
        return `${a.text}\n${b.text}`;
      };
    }
  }

  if (row.diagnostics && !running) {
    const formats = JSON.parse(row.diagnostics) as DiagnosticFormat[] | 'auto';
    const text = whole !== null ? await whole() : row.kind === 'foreground' ? (data.output as string) : `${data.stdout as string}\n${data.stderr as string}`;
    const diagnostics: Diagnostic[] = parseDiagnostics(text, formats);
    data.diagnostics = diagnostics;
  }
  if (truncated) continuation.push(action('observe', { view: 'logs', remote_session_id: rs, execution_task_id: row.id, stdout_offset: row.kind === 'foreground' ? (row.pty_start ?? 0) : 0 }, 'read the whole output from its start'));

  const tail = capHead(shown, TEXT_BLOCK_OUTPUT_MAX_BYTES);
  // A text-only client (DESIGN §6.3) gets the call that reads the whole output from its start in
  // pages whose text block holds them whole.
  const fromStart = action('observe', { view: 'logs', remote_session_id: rs, execution_task_id: row.id, stdout_offset: row.kind === 'foreground' ? (row.pty_start ?? 0) : 0, max_bytes: logsTextPageBytes(row.kind === 'foreground' ? 1 : 2) }, 'read the output from its start');
  const tailNote = tail.cut
    ? `[… last ${TEXT_BLOCK_OUTPUT_MAX_BYTES / 1024} KiB shown here; the whole output from its start, page by page: ${callText(fromStart)}; ${truncated ? 'the last 64 KiB are in' : 'full text in'} structuredContent.data${truncated ? `, the log is ${uri}` : ''}]\n`
    : '';

  if (f.awaitingInput) {
    data.screen = f.screen ?? '';
    const screenTail = lastLines(f.screen ?? '', SCREEN_LINES_SHOWN);
    return {
      shown: shownTo,
      outcome: outcome('execute.awaiting_input', 'accepted', data, `Waiting for input (${row.id}); answer with execute(action="stdin"). Its screen:\n${screenTail}`, {
        context,
        hints: { awaiting_input: true },
        actions: [action('execute', { action: 'stdin', remote_session_id: rs, execution_task_id: row.id, text: '', keys: ['Enter'] }, 'answer the prompt: put the answer in text'), ...continuation],
      }),
    };
  }
  if (running) {
    const what = row.kind === 'foreground' ? 'Still running' : `Task running${row.kind === 'argv' ? '' : ' in the background'}`;
    const label = skipped > 0 ? 'New output' : 'Output so far';
    return {
      shown: shownTo,
      outcome: outcome(row.kind === 'foreground' ? 'execute.running' : 'execute.task_running', 'accepted', data, `${what} (${row.id}); wait for it again with ${callText(attach)}.${shown ? `\n${label}:\n${tailNote}${tail.text}` : skipped > 0 ? ' No new output.' : ''}`, {
        context,
        actions: continuation,
      }),
    };
  }
  const ending =
    row.state === 'interrupted'
      ? `[interrupted: ${row.error ?? 'its session ended'}]`
      : `[exit code ${row.exit_code ?? 'unknown'}${row.signal ? `, signal ${row.signal}` : ''}]`;
  const diag = Array.isArray(data.diagnostics) && data.diagnostics.length > 0 ? `\n[${data.diagnostics.length} diagnostics in structuredContent.data.diagnostics]` : '';
  const earlier = skipped > 0 ? (tail.text === '' ? `[no output after what an earlier result showed; offset=0 shows all ${skipped} bytes before]\n` : `[output after what an earlier result showed; offset=0 shows the ${skipped} bytes before too]\n`) : '';
  const text = `${earlier}${tailNote}${tail.text}${tail.text === '' || tail.text.endsWith('\n') ? '' : '\n'}${ending}${diag}`;
  const type = row.kind === 'foreground' ? 'execute.finished' : 'execute.task_finished';
  return { shown: shownTo, outcome: outcome(type, row.state === 'interrupted' ? 'interrupted' : 'succeeded', data, text, { context, actions: continuation }) };
}

/** Caps stdout and stderr together at 64 KiB, giving stderr at most half when both are long. */
function shareBudget(so: RenderedRange, se: RenderedRange): [RenderedRange, RenderedRange] {
  const max = OutputLimits.MODEL_TEXT_MAX_BYTES;
  const a = Buffer.byteLength(so.text);
  const b = Buffer.byteLength(se.text);
  if (a + b <= max) return [so, se];
  const errBudget = Math.min(b, Math.max(max / 2, max - a));
  const outBudget = max - errBudget;
  const cut = (r: RenderedRange, n: number): RenderedRange => {
    const c = capHead(r.text, n);
    return { ...r, text: c.text, truncated: r.truncated || c.cut };
  };
  return [cut(so, outBudget), cut(se, errBudget)];
}

function lastLines(s: string, n: number): string {
  const lines = s.split('\n');
  return lines.slice(Math.max(0, lines.length - n)).join('\n');
}
