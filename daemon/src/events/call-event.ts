import type { CallContext } from '@holdfast/shared/control';
import type { ToolOutcome } from '../tools/envelope.js';

/** Longest one-line summary and error message an event keeps, characters. */
const SUMMARY_MAX_CHARS = 200;
/** Paths an event lists at most. */
const PATHS_MAX = 50;

/** What a call was aimed at: a one-line target and the workspace paths it named. */
interface Aim {
  target?: string;
  paths?: string[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object') : []);

/**
 * Per-tool readers of a call's target from its arguments (issue 11: the observe stream shows a verb
 * and a target). Values typed into a program (`execute` stdin text) and environment values are
 * never recorded. Tools without an entry fall back to {@link genericAim}.
 */
const AIMS: Readonly<Record<string, (args: Record<string, unknown>) => Aim>> = {
  read: (a) => {
    const items = objects(a.items).map((i) => str(i.path)).filter((p): p is string => p !== undefined);
    const path = str(a.path);
    const paths = path ? [path, ...items] : items;
    if (a.view === 'search') return { target: `"${str(a.query) ?? ''}"${path ? ` in ${path}` : ''}`, paths };
    return { target: paths.length > 1 ? `${paths[0]} and ${paths.length - 1} more` : (paths[0] ?? '.'), paths };
  },
  edit: (a) => {
    const paths = objects(a.edits).flatMap((e) => [str(e.path), str(e.new_path)]).filter((p): p is string => p !== undefined);
    return { target: paths.join(', '), paths };
  },
  move_out: (a) => {
    const paths = objects(a.targets).map((t) => str(t.path)).filter((p): p is string => p !== undefined);
    return paths.length > 0 ? { target: paths.join(', '), paths } : { target: str(a.confirmation_uuid) ?? '' };
  },
  execute: (a) => {
    const action = str(a.action) ?? 'run';
    if (action !== 'run') return { target: str(a.execution_task_id) ?? '' };
    const argv = Array.isArray(a.argv) ? a.argv.filter((x): x is string => typeof x === 'string') : null;
    const target = str(a.command) ?? (argv ? argv.map(shellWord).join(' ') : str(a.task) ? `task ${a.task as string}` : '');
    return { target, ...(str(a.cwd) ? { paths: [a.cwd as string] } : {}) };
  },
  session: (a) => ({ target: str(a.workspace) ?? str(a.remote_session_id) ?? '' }),
  observe: (a) => ({ target: [str(a.view), str(a.execution_task_id) ?? str(a.edit_id)].filter(Boolean).join(' ') }),
  runtime_read: (a) => ({ target: str(a.view) ?? 'capabilities' }),
  // Issue 12: a batch shows its steps' tools; the steps' own events show what each did.
  operation_batch: (a) => {
    const steps = objects(a.steps);
    return { target: `${steps.length} step${steps.length === 1 ? '' : 's'}: ${steps.map((x) => str(x.tool) ?? '?').join(', ')}`.slice(0, SUMMARY_MAX_CHARS) };
  },
  operation_manage: (a) => ({ target: str(a.operation_id) ?? `${Array.isArray(a.operation_ids) ? a.operation_ids.length : 0} operations` }),
  environment_read: (a) => ({ target: [str(a.view), str(a.snapshot_id), str(a.against)].filter(Boolean).join(' ') }),
};

/** An argv word as a shell would need it written (single-quoted when it holds anything special). */
function shellWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`;
}

function genericAim(a: Record<string, unknown>): Aim {
  const path = str(a.path);
  const target = path ?? str(a.name) ?? str(a.title) ?? str(a.command) ?? '';
  return path ? { target, paths: [path] } : { target };
}

function firstLine(s: string, max = SUMMARY_MAX_CHARS): string {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * The data of one `tool.call` event (issue 5; issue 11 adds what the observe stream shows): the
 * duration, the principal, the call's action (or view), purpose, target and paths, the ids the
 * result names (execution task, edit), its exit code, a one-line summary, the error, and whatever
 * the handler added (`outcome.event.data`). Arguments are read, never stored whole.
 */
export function callEventData(tool: string, args: Record<string, unknown>, outcome: ToolOutcome, call: CallContext, durationMs: number): Record<string, unknown> {
  const env = outcome.envelope;
  const data = (env.data ?? {}) as Record<string, unknown>;
  const aim = (AIMS[tool] ?? genericAim)(args);
  const action = str(args.action) ?? str(args.view);
  const purpose = str(args.purpose) ?? env.context.purpose;
  const out: Record<string, unknown> = { duration_ms: durationMs, principal: call.principal };
  if (call.request_id !== undefined) out.request_id = call.request_id;
  if (action) out.action = action;
  if (purpose) out.purpose = purpose;
  if (aim.target) out.target = aim.target;
  if (aim.paths && aim.paths.length > 0) out.paths = aim.paths.slice(0, PATHS_MAX);
  if (env.context.execution_task_id) out.execution_task_id = env.context.execution_task_id;
  if (typeof data.exit_code === 'number') out.exit_code = data.exit_code;
  if (typeof data.edit_id === 'string') out.edit_id = data.edit_id;
  if (env.context.plan_id) out.plan_id = env.context.plan_id;
  if (env.context.plan_task_id) out.plan_task_id = env.context.plan_task_id;
  out.type = env.type;
  // A command's text block is its output: the stream reads output from the logs instead.
  if (tool !== 'execute') out.summary = firstLine(outcome.text);
  if (env.error) {
    out.error = env.error.code;
    out.error_message = firstLine(env.error.message);
  }
  return { ...out, ...(outcome.event?.data ?? {}) };
}
