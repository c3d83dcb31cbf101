import { createHash } from 'node:crypto';
import { newId } from '@holdfast/shared/ids';
import { guardianSource } from '../../execution/byte-source.js';
import { renderTail } from '../../execution/rendered-output.js';
import { evaluateCommand, type PolicyVerdict } from '../../policy/commands.js';
import { effectiveCommandRules } from '../../policy/effective-rules.js';
import type { ToolContext } from '../context.js';
import type { FileWorkspace } from '../file-access.js';

/**
 * The wait of a verify_command ends at least this long before the request timeout, ms; the
 * configured wait (`limits.verify_wait_ms`, default 20 s) stays well under the 60 s default
 * request timeout of MCP SDK clients, which would otherwise give up on an edit that was applied.
 */
const VERIFY_REQUEST_MARGIN_MS = 10_000;

/**
 * How long an edit waits for its verify_command, ms (it keeps running as a task after that, and
 * the edit answers `completed_with_issues` with the task to attach to): `limits.verify_wait_ms`,
 * at most the request timeout minus a margin.
 */
export function verifyWaitMs(limits: { verify_wait_ms: number; request_timeout_ms: number }): number {
  return Math.max(0, Math.min(limits.verify_wait_ms, limits.request_timeout_ms - VERIFY_REQUEST_MARGIN_MS));
}
/** Output of a verify_command kept in the result, bytes per stream. */
const VERIFY_OUTPUT_MAX_BYTES = 8 * 1024;

/** What became of an edit's `verify_command` (issue 4). */
export interface VerifyResult {
  command: string;
  /** The command ran (policy allowed it). */
  ran: boolean;
  /** It ran and exited 0. */
  passed: boolean;
  /** Policy verdict: allow, confirm or deny. */
  decision: string;
  reason: string;
  execution_task_id?: string;
  state?: 'running' | 'exited';
  exit_code?: number | null;
  signal?: string | null;
  stdout?: string;
  stderr?: string;
}

/** The policy verdict on a verify_command, judged in the workspace root (issue 5 policy). */
export function verifyVerdict(ctx: ToolContext, ws: FileWorkspace, command: string): PolicyVerdict {
  const rules = effectiveCommandRules(ctx.services.config.config.security.commands, ws.files.projects.get(ws.root));
  return evaluateCommand({ command, cwd: ws.root }, rules);
}

/**
 * Runs an edit's `verify_command` after a successful write (issue 4), under the execute policy
 * and only after its audit line is written (issue 18: when that fails the result says so and the
 * check is not run — the edit is applied either way)
 * (issue 5, policy/commands.ts with the project's narrowing): anything but `allow` is not run — a
 * check that needs confirmation or is denied says so. It runs as a background task on the
 * session's guardian in the workspace root, waited for up to {@link verifyWaitMs}; one still
 * running then comes back with `state: 'running'` and its `execution_task_id`.
 */
export async function runVerify(ctx: ToolContext, ws: FileWorkspace, command: string, editId: string): Promise<VerifyResult> {
  const verdict = verifyVerdict(ctx, ws, command);
  if (verdict.decision !== 'allow') {
    return { command, ran: false, passed: false, decision: verdict.decision, reason: verdict.reason };
  }
  const link = await ctx.services.sessions.ensureLink(ws.session.id);
  const id = newId('executionTask');
  // As for execute (issue 5): no audit line, no command. The edit itself is already on disk.
  try {
    ws.files.audit.append({ event: 'edit.verify', principal: ctx.call.principal, remote_session_id: ws.session.id, execution_task_id: id, command, decision: 'allow', reason: verdict.reason });
  } catch (err) {
    return { command, ran: false, passed: false, decision: verdict.decision, reason: `the audit log could not be written (${(err as Error).message}), and nothing runs unaudited` };
  }
  // A task row like execute's, so execute(action="attach") and observe(view="task"/"logs") find it.
  const now = Date.now();
  const tasks = ctx.services.execution.tasks;
  tasks.insert({
    id, session_id: ws.session.id, workspace: ws.session.workspace, principal: ctx.call.principal, kind: 'background', origin: 'command', task_name: null,
    command, argv: null, cwd: ws.root, env_keys: null, purpose: `verify_command of ${editId}`, idempotency_key: null,
    fingerprint: createHash('sha256').update(`verify\0${command}`).digest('hex'), policy_decision: 'allow',
    policy_rule: verdict.segments.find((x) => x.decision === 'allow')?.rule ?? null, diagnostics: null, state: 'running', created_at: now, expires_at: null, started_at: now,
  });
  try {
    await link.spawn({ id, command, cwd: ws.root });
  } catch (err) {
    tasks.update(id, { state: 'failed', ended_at: Date.now(), error: (err as Error).message });
    throw err;
  }
  const rec = await link.wait({ id, waitMs: Math.min(verifyWaitMs(ctx.services.config.config.limits), ctx.call.wait_cap_ms ?? Number.POSITIVE_INFINITY) });
  ctx.services.execution.sync.apply(rec);
  const source = guardianSource(link);
  const base: VerifyResult = { command, ran: true, passed: false, decision: 'allow', reason: verdict.reason, execution_task_id: id };
  if (rec.kind !== 'task') return { ...base, state: rec.state };
  const [out, err] = await Promise.all([
    renderTail(source, `task:${id}:stdout`, rec.stdout.start, rec.stdout.end, VERIFY_OUTPUT_MAX_BYTES),
    renderTail(source, `task:${id}:stderr`, rec.stderr.start, rec.stderr.end, VERIFY_OUTPUT_MAX_BYTES),
  ]);
  return {
    ...base,
    passed: rec.state === 'exited' && rec.exitCode === 0,
    state: rec.state,
    exit_code: rec.exitCode ?? null,
    signal: rec.signal ?? null,
    stdout: out.text,
    stderr: err.text,
  };
}
