import type { StreamDiff, StreamEvent, StreamOutput } from '@holdfast/shared/control';
import { WorkLimits } from '@holdfast/shared/constants';
import type { HomeLayout } from '@holdfast/shared/paths';
import type { OutputSource } from '@holdfast/shared/protocol';
import { diskSource, type ByteSource } from '../execution/byte-source.js';
import { readRange, renderTail } from '../execution/rendered-output.js';
import type { EditsRepo } from '../store/edits-repo.js';
import type { EventRow } from '../store/events-repo.js';
import type { TaskRow, TasksRepo } from '../store/tasks-repo.js';

/** What a stream shows beyond the stored event: command output lines and an edit's diff. */
export interface EventDetailOptions {
  /** More output lines (WorkLimits.OBSERVE_OUTPUT_LINES_DETAIL instead of OBSERVE_OUTPUT_LINES). */
  detail: boolean;
  diff: 'summary' | 'preview' | 'full';
}

/** The stores the view reads output and diffs from. */
export interface EventViewStores {
  layout: HomeLayout;
  tasks: TasksRepo;
  edits: EditsRepo;
}

/** Raw bytes read at most to count the lines of a long output, bytes. */
const LINE_COUNT_MAX_BYTES = 32 * 1024 * 1024;

/**
 * A stored event in its public shape (issue 11 `holdfast observe`): the row's facts and recorded
 * data, plus — for an `execute` call — the tail of the task's output as numbered lines (stdout
 * and stderr apart for piped tasks, the terminal's for a foreground command), and — for an `edit`
 * — its changes per file (and diff lines with `diff: preview|full`). Output and diffs are read
 * from the logs and the edits table when the event is shown, never copied into the event log.
 */
export async function streamEvent(row: EventRow, opts: EventDetailOptions, stores: EventViewStores): Promise<StreamEvent> {
  const data = row.data ? (JSON.parse(row.data) as Record<string, unknown>) : {};
  const ev: StreamEvent = {
    sequence: row.seq,
    at: new Date(row.at).toISOString(),
    kind: row.kind,
    workspace: row.workspace,
    remote_session_id: row.session_id,
    tool: row.tool,
    status: row.status,
    data,
  };
  // A call of execute, or a command found waiting at a prompt: the tail of its output (the prompt).
  if ((row.tool === 'execute' || row.kind === 'session.awaiting_input') && typeof data.execution_task_id === 'string' && row.session_id) {
    const task = stores.tasks.get(data.execution_task_id);
    if (task && task.session_id === row.session_id) {
      const output = await taskOutput(task, diskSource(stores.layout, task.session_id), opts.detail ? WorkLimits.OBSERVE_OUTPUT_LINES_DETAIL : WorkLimits.OBSERVE_OUTPUT_LINES).catch(() => null);
      if (output && output.streams.length > 0) ev.output = output;
    }
  }
  if (row.tool === 'edit' && typeof data.edit_id === 'string') {
    const edit = stores.edits.get(data.edit_id);
    if (edit && edit.session_id === row.session_id) ev.diff = diffView(edit.diff, opts.diff);
  }
  return ev;
}

async function taskOutput(task: TaskRow, source: ByteSource, maxLines: number): Promise<StreamOutput> {
  const streams: StreamOutput['streams'] = [];
  const add = async (name: 'pty' | 'stdout' | 'stderr', src: OutputSource, start: number, endKnown: number | null): Promise<void> => {
    const end = endKnown ?? (await source.end(src));
    if (end <= start) return;
    const tail = await renderTail(source, src, start, end);
    let lines = tail.text.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    let total = lines.length;
    if (tail.truncated) total = await countLines(source, src, start, end, lines.length);
    if (lines.length > maxLines) lines = lines.slice(lines.length - maxLines);
    if (lines.length > 0) streams.push({ name, first_line: total - lines.length + 1, total_lines: total, lines });
  };
  const running = task.state === 'running';
  if (task.kind === 'foreground') {
    await add('pty', 'pty', task.pty_start ?? 0, running ? null : task.pty_end);
  } else {
    await add('stdout', `task:${task.id}:stdout`, 0, running ? null : task.stdout_end);
    await add('stderr', `task:${task.id}:stderr`, 0, running ? null : task.stderr_end);
  }
  return { streams };
}

/** Lines of a long output (newlines in its raw bytes, bounded), at least `seen`. */
async function countLines(source: ByteSource, src: OutputSource, start: number, end: number, seen: number): Promise<number> {
  const from = Math.max(start, end - LINE_COUNT_MAX_BYTES);
  const r = await readRange(source, src, from, end);
  let n = 0;
  for (let i = r.bytes.indexOf(0x0a); i !== -1; i = r.bytes.indexOf(0x0a, i + 1)) n++;
  if (r.bytes.length > 0 && r.bytes[r.bytes.length - 1] !== 0x0a) n++;
  return Math.max(n, seen);
}

/** Per-file counts of a unified diff, and its lines for `preview` (first lines) or `full` (bounded). */
export function diffView(diff: string, mode: EventDetailOptions['diff']): StreamDiff {
  const all = diff.split('\n');
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  const files: StreamDiff['files'] = [];
  let cur: StreamDiff['files'][number] | null = null;
  for (let i = 0; i < all.length; i++) {
    const l = all[i]!;
    if (l.startsWith('--- ') && all[i + 1]?.startsWith('+++ ')) {
      const b = all[i + 1]!.slice(4);
      const a = l.slice(4);
      cur = { path: (b === '/dev/null' ? a : b).replace(/^[ab]\//, ''), added: 0, removed: 0 };
      files.push(cur);
      i++;
      continue;
    }
    if (!cur || l.startsWith('@@')) continue;
    if (l.startsWith('+')) cur.added++;
    else if (l.startsWith('-')) cur.removed++;
  }
  if (mode === 'summary') return { files };
  const max = mode === 'preview' ? WorkLimits.OBSERVE_DIFF_PREVIEW_LINES : WorkLimits.OBSERVE_DIFF_FULL_LINES;
  return { files, lines: all.slice(0, max), ...(all.length > max ? { truncated: true } : {}) };
}
