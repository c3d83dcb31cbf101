import type { OutputSource } from '@holdfast/shared/protocol';
import { diskSource, guardianSource, type ByteSource } from '../../execution/byte-source.js';
import { capHead, taskLogUri } from '../../execution/rendered-output.js';
import { logsTextPageBytes, TEXT_BLOCK_OUTPUT_MAX_BYTES } from '../../execution/task-result.js';
import { requireTaskRow } from '../../execution/task-lookup.js';
import { renderTerminalText } from '../../render/terminal-text.js';
import type { TaskRow } from '../../store/tasks-repo.js';
import type { ToolContext } from '../context.js';
import { action, callText, outcome, withMore, type ToolOutcome } from '../envelope.js';
import type { ObserveArgs } from './index.js';
import { requireSessionAccess } from '../../sessions/access.js';

/** Raw bytes per stream per call by default. */
export const LOGS_DEFAULT_MAX_BYTES = 64 * 1024;

interface Stream {
  name: 'stdout' | 'stderr';
  src: OutputSource;
  /** First offset that belongs to the task. */
  start: number;
  /** Offset after its last byte, when known (finished). */
  end: number | null;
  from: number | undefined;
}

interface Page {
  offset: number;
  next_offset: number;
  end: number | null;
  /** Bytes below `offset` were asked for but are no longer kept. */
  gap: boolean;
  text: string;
}

/**
 * `observe(view="logs")` (issue 5): a task's output by absolute byte offset — piped tasks per
 * stream (`stdout_offset`, `stderr_offset`), a foreground command as one stream (`stdout_offset`,
 * offsets of the session's PTY log, clamped to the command's range). Returns rendered text, next
 * offsets and, until everything is read, a continuation action with them. Pages end at a line
 * boundary when they can. `wait_ms` long-polls a running task that has nothing new yet. Works
 * after the task's process — and its guardian — are gone (the logs stay on disk).
 */
export async function logsView(args: ObserveArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { sessions, execution, layout } = ctx.services;
  const session = requireSessionAccess(ctx, args.remote_session_id, 'viewer').session;
  let row = requireTaskRow(execution.tasks, args.execution_task_id, session.id, 'view=logs');
  let source: ByteSource = diskSource(layout, session.id);
  if (row.state === 'running') {
    try {
      const link = await sessions.ensureLink(session.id);
      row = execution.sync.apply(await link.wait({ id: row.id, waitMs: 0 })) ?? row;
      if (row.state === 'running') source = guardianSource(link);
    } catch {
      // the session is gone: its logs are on disk
    }
  }
  const running = row.state === 'running';
  const max = args.max_bytes ?? LOGS_DEFAULT_MAX_BYTES;
  const wait = running ? (args.wait_ms ?? 0) : 0;
  const streams = streamsOf(row, args);
  const pages = await Promise.all(streams.map((s) => readPage(source, s, max, wait)));
  const data: Record<string, unknown> = { execution_task_id: row.id, kind: row.kind, state: row.state, exit_code: row.exit_code, log_uri: taskLogUri(row.session_id, row.id) };
  const next: Record<string, number> = {};
  let complete = !running;
  streams.forEach((s, i) => {
    data[s.name] = pages[i];
    next[s.name] = pages[i]!.next_offset;
    if (pages[i]!.end === null || pages[i]!.next_offset < pages[i]!.end!) complete = false;
  });
  data.next_offsets = next;
  data.complete = complete;
  const rs = row.session_id;
  const actions = complete
    ? []
    : [
        action(
          'observe',
          { view: 'logs', remote_session_id: rs, execution_task_id: row.id, stdout_offset: next.stdout, ...(next.stderr !== undefined ? { stderr_offset: next.stderr } : {}), ...(args.max_bytes ? { max_bytes: args.max_bytes } : {}), ...(running ? { wait_ms: 5000 } : {}) },
          running ? 'read what comes next' : 'read the next page',
        ),
      ];
  const shown = pages.map((p, i) => (streams.length > 1 ? `[${streams[i]!.name} ${p.offset}..${p.next_offset}]\n` : '') + p.text).join('\n');
  const tail = capHead(shown, TEXT_BLOCK_OUTPUT_MAX_BYTES);
  const head = `${row.id} ${row.state}: bytes ${pages.map((p, i) => `${streams[i]!.name} ${p.offset}..${p.next_offset}${p.end !== null ? ` of ${p.end}` : ''}`).join(', ')}${complete ? ' (all read)' : ''}`;
  // What a client that shows the model only the text block (DESIGN §6.3) calls next: the next page,
  // or — when this page's text was cut — this page again in pages that fit the text block.
  let note = '';
  if (tail.cut) {
    const again = action(
      'observe',
      { view: 'logs', remote_session_id: rs, execution_task_id: row.id, stdout_offset: pages[0]!.offset, ...(pages[1] ? { stderr_offset: pages[1].offset } : {}), max_bytes: logsTextPageBytes(streams.length) },
      'this page in smaller pages',
    );
    note = `[… last ${TEXT_BLOCK_OUTPUT_MAX_BYTES / 1024} KiB of this page shown here; the page is in structuredContent.data; read it in pages that fit here with ${callText(again)}]\n`;
  }
  const body = tail.cut ? tail.text : withMore(tail.text, actions[0]);
  return outcome('observe.logs', 'succeeded', data, `${head}\n${note}${body}`, {
    context: { remote_session_id: rs, execution_task_id: row.id },
    actions,
  });
}

function streamsOf(row: TaskRow, args: ObserveArgs): Stream[] {
  if (row.kind === 'foreground') {
    return [{ name: 'stdout', src: 'pty', start: row.pty_start ?? 0, end: row.state === 'running' ? null : (row.pty_end ?? null), from: args.stdout_offset }];
  }
  const running = row.state === 'running';
  return [
    { name: 'stdout', src: `task:${row.id}:stdout`, start: 0, end: running ? null : row.stdout_end, from: args.stdout_offset },
    { name: 'stderr', src: `task:${row.id}:stderr`, start: 0, end: running ? null : row.stderr_end, from: args.stderr_offset },
  ];
}

async function readPage(source: ByteSource, s: Stream, max: number, waitMs: number): Promise<Page> {
  const from = Math.max(s.start, s.from ?? s.start);
  const end = s.end ?? null;
  const want = end === null ? max : Math.max(0, Math.min(max, end - from));
  if (want === 0) return { offset: from, next_offset: from, end, gap: false, text: '' };
  const r = await source.read(s.src, from, want, waitMs);
  let bytes = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.length);
  const reachedEnd = end !== null ? r.offset + bytes.length >= end : bytes.length < want;
  if (!reachedEnd) {
    // End the page after its last complete line (or at a UTF-8 boundary when there is none).
    const nl = bytes.lastIndexOf(0x0a);
    if (nl >= 0) bytes = bytes.subarray(0, nl + 1);
    else bytes = bytes.subarray(0, utf8Boundary(bytes));
  }
  return { offset: r.offset, next_offset: r.offset + bytes.length, end: end ?? (s.src === 'pty' ? null : r.end), gap: r.gap, text: renderTerminalText(bytes) };
}

/** Length of the longest prefix that does not end inside a UTF-8 sequence. */
function utf8Boundary(b: Buffer): number {
  let i = b.length;
  let k = 0;
  while (i > 0 && k < 4 && (b[i - 1]! & 0xc0) === 0x80) {
    i--;
    k++;
  }
  if (i > 0 && b[i - 1]! >= 0xc0) {
    const lead = b[i - 1]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (k + 1 < need) return i - 1;
  }
  return b.length;
}
