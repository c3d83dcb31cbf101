import { createHash } from 'node:crypto';
import { newId } from '@holdfast/shared/ids';
import { guardianSource } from '../../execution/byte-source.js';
import { renderTail } from '../../execution/rendered-output.js';
import { evaluateCommand } from '../../policy/commands.js';
import { effectiveCommandRules } from '../../policy/effective-rules.js';
import type { ToolContext } from '../context.js';
import type { FileWorkspace } from '../file-access.js';

/** How long an edit waits for its verify_command, ms (it keeps running as a task after that). */
export const VERIFY_WAIT_MS = 60_000;
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

/**
 * Runs an edit's `verify_command` after a successful write (issue 4), under the execute policy
 * (issue 5, policy/commands.ts with the project's narrowing): anything but `allow` is not run — a
 * check that needs confirmation or is denied says so. It runs as a background task on the
 * session's guardian in the workspace root, waited for up to VERIFY_WAIT_MS.
 */
export async function runVerify(ctx: ToolContext, ws: FileWorkspace, command: string, editId: string): Promise<VerifyResult> {
  const rules = effectiveCommandRules(ctx.services.config.config.security.commands, ws.files.projects.get(ws.root));
  const verdict = evaluateCommand({ command }, rules);
  if (verdict.decision !== 'allow') {
    return { command, ran: false, passed: false, decision: verdict.decision, reason: verdict.reason };
  }
  const link = await ctx.services.sessions.ensureLink(ws.session.id);
  const id = newId('executionTask');
  ws.files.audit.append({ event: 'edit.verify', principal: ctx.call.principal, remote_session_id: ws.session.id, execution_task_id: id, command, decision: 'allow', reason: verdict.reason });
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
  const rec = await link.wait({ id, waitMs: VERIFY_WAIT_MS });
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
