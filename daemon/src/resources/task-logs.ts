import type { ControlParsedParams, ControlResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { diskSource, guardianSource, type ByteSource } from '../execution/byte-source.js';
import { readRange, taskLogUri } from '../execution/rendered-output.js';
import { requireTaskRow, taskSummary } from '../execution/task-lookup.js';
import { renderTerminalText } from '../render/terminal-text.js';
import { requireSessionAccess } from '../sessions/access.js';
import type { TaskRow } from '../store/tasks-repo.js';
import type { ToolServices } from '../tools/context.js';

/** The URI template of task logs (issue 5). */
export const TASK_LOGS_TEMPLATE = 'holdfast://remote-sessions/{remote_session_id}/tasks/{execution_task_id}/logs';
const URI = /^holdfast:\/\/remote-sessions\/([^/]+)\/tasks\/([^/]+)\/logs$/;
/** Raw bytes per stream a resource read renders at most (from the start; the rest pages through observe). */
export const RESOURCE_MAX_BYTES = 4 * 1024 * 1024;
/** Tasks listed per session in `resources/list`. */
const LISTED_PER_SESSION = 20;
const MIME = 'text/plain';

/** `resource.templates`: the one template holdfast serves. */
export function resourceTemplates(): ControlResult<'resource.templates'> {
  return {
    resourceTemplates: [
      {
        uriTemplate: TASK_LOGS_TEMPLATE,
        name: 'execution-task-logs',
        title: 'Execution task logs',
        description: 'Rendered output of an execute task (PTY output of a foreground command; stdout then stderr of a piped task), from its start',
        mimeType: MIME,
      },
    ],
  };
}

function checkTools(allowed: string[] | undefined): void {
  if (allowed && !allowed.includes('observe') && !allowed.includes('execute')) {
    throw new HoldfastError('TOOL_NOT_ALLOWED', 'task logs need the observe or execute tool');
  }
}

/** `resource.list`: recent tasks of the live sessions the principal owns or holds a role on (issue 14). */
export async function listTaskLogs(p: ControlParsedParams<'resource.list'>, s: ToolServices): Promise<ControlResult<'resource.list'>> {
  checkTools(p.allowed_tools);
  const resources: ControlResult<'resource.list'>['resources'] = [];
  const visible = s.sessions.accessibleSessionIds(p.principal);
  for (const view of (await s.sessions.list(false)).filter((v) => visible.has(v.remote_session_id))) {
    for (const row of s.execution.tasks.listForSession(view.remote_session_id, LISTED_PER_SESSION)) {
      if (row.state === 'waiting_confirmation' || row.state === 'failed') continue;
      const t = taskSummary(row);
      const what = row.argv ? (JSON.parse(row.argv) as string[]).join(' ') : (row.command ?? '');
      resources.push({ uri: taskLogUri(row.session_id, row.id), name: row.id, title: `${row.state}: ${what.slice(0, 80)}`, description: `${t.kind} task of ${row.session_id}`, mimeType: MIME });
    }
  }
  return { resources };
}

/**
 * `resource.read`: the rendered log of one task of a session the principal can view (issue 14), from its start
 * (at most {@link RESOURCE_MAX_BYTES} raw bytes per stream; a note says how to page the rest).
 * @throws HoldfastError `BAD_REQUEST` (not a task-log URI), `SESSION_NOT_FOUND` (also: no role on it), `TASK_NOT_FOUND`.
 */
export async function readTaskLog(p: ControlParsedParams<'resource.read'>, s: ToolServices): Promise<ControlResult<'resource.read'>> {
  checkTools(p.allowed_tools);
  const m = URI.exec(p.uri);
  if (!m) throw new HoldfastError('BAD_REQUEST', `${p.uri} is not a holdfast resource; expected ${TASK_LOGS_TEMPLATE}`);
  const { session } = requireSessionAccess({ call: { principal: p.principal }, services: s }, decodeURIComponent(m[1]!), 'viewer');
  const row = requireTaskRow(s.execution.tasks, decodeURIComponent(m[2]!), session.id, 'a task log');
  let source: ByteSource = diskSource(s.layout, session.id);
  if (row.state === 'running') {
    try {
      source = guardianSource(await s.sessions.ensureLink(session.id));
    } catch {
      // gone: the disk has it
    }
  }
  return { contents: [{ uri: p.uri, mimeType: MIME, text: await logText(row, source) }] };
}

async function logText(row: TaskRow, source: ByteSource): Promise<string> {
  const part = async (src: Parameters<ByteSource['read']>[0], start: number, endKnown: number | null): Promise<string> => {
    const end = endKnown ?? (await source.end(src));
    const stop = Math.min(end, start + RESOURCE_MAX_BYTES);
    const r = await readRange(source, src, start, stop);
    const head = r.gap ? `[the first ${r.first - start} bytes are no longer kept]\n` : '';
    const more = stop < end ? `\n[${end - stop} more bytes: observe(view="logs", execution_task_id="${row.id}", ${src === 'pty' || src.endsWith('stdout') ? 'stdout' : 'stderr'}_offset=${stop})]` : '';
    return head + renderTerminalText(r.bytes) + more;
  };
  if (row.kind === 'foreground') return part('pty', row.pty_start ?? 0, row.state === 'running' ? null : row.pty_end);
  const out = await part(`task:${row.id}:stdout`, 0, row.state === 'running' ? null : row.stdout_end);
  const err = await part(`task:${row.id}:stderr`, 0, row.state === 'running' ? null : row.stderr_end);
  return err ? `${out}${out.endsWith('\n') || out === '' ? '' : '\n'}--- stderr ---\n${err}` : out;
}
