import { cancelWhy, type CancelWhy } from '@holdfast/shared/errors';
import type { CommandRecord, TaskRecord } from '@holdfast/shared/protocol';
import type { GuardianLink } from '../sessions/link.js';
import type { ExecutionServices } from './services.js';

/** A foreground run waits at most this long for an earlier cancel's interrupt in its session, ms. */
const INTERRUPT_WAIT_MS = 5000;

/**
 * What the cancellation of an `execute(action="run")` does to its foreground command (issue 9,
 * item 4). The reason travels with the abort (`cancel{id, why}` frames, shared/errors.ts):
 *
 * - `client` — the MCP client cancelled the call (`notifications/cancelled`): a command not typed
 *   yet never runs; a running one is interrupted like `execute(action="stop")` (Ctrl-C, then the
 *   DESIGN §4.4 escalation of its process group). Its row becomes `interrupted`.
 * - `gone` — the connection went away where the answer cannot be fetched later (a 2026-07-28
 *   stream, a stateless 2025 POST): the client will send the call again, so a command not typed
 *   yet never runs; a running one keeps running (a dropped connection is never a reason to lose
 *   work; attach or stop it later).
 * - `timeout` — the client's own request timeout fired and it sent `notifications/cancelled` saying
 *   so (the SDKs' "Request timed out"): it gave up waiting, it did not ask to stop anything. As for
 *   `gone`: a command not typed yet never runs, a running one keeps running and the agent picks it
 *   up with `execute(action="attach"|"status")` (its id: `observe(view="session")`).
 * - no reason (a deadline, the daemon's own) — nothing is done.
 *
 * The interrupt runs in the background (the client has its answer already); the next foreground
 * run of the session waits for it first ({@link awaitInterrupts}), so it never meets
 * `COMMAND_ALREADY_RUNNING` from the command that was just cancelled.
 */
export function onRunCancelled(ex: ExecutionServices, link: GuardianLink, who: { principal: string; sessionId: string }, id: string, reason: unknown): void {
  const sessionId = who.sessionId;
  const why = cancelWhy(reason);
  if (why === undefined) return;
  const work = (async () => {
    try {
      const rec = why === 'client' ? await link.stop(id) : await link.stopIfQueued(id);
      if (!rec) return;
      ex.sync.apply(rec);
      if (rec.kind === 'command' && rec.state === 'exited' && (why === 'client' || rec.notStarted !== undefined)) {
        ex.tasks.update(id, { state: 'interrupted', error: cancelledText(why, rec) });
      }
      ex.audit.append({ event: 'execute.cancelled', principal: who.principal, remote_session_id: sessionId, execution_task_id: id, by: why, outcome: outcomeOf(rec) });
    } catch {
      // the session or its guardian went away: its rows are finalised by the session's end
    }
  })();
  const chain = Promise.all([ex.interrupting.get(sessionId), work]).then(() => undefined);
  ex.interrupting.set(sessionId, chain);
  void chain.finally(() => {
    if (ex.interrupting.get(sessionId) === chain) ex.interrupting.delete(sessionId);
  });
}

/** Waits (bounded) for cancels of this session's runs to finish interrupting. */
export async function awaitInterrupts(ex: ExecutionServices, sessionId: string): Promise<void> {
  const p = ex.interrupting.get(sessionId);
  if (!p) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, INTERRUPT_WAIT_MS)))]);
  clearTimeout(timer);
}

function cancelledText(why: CancelWhy, rec: CommandRecord): string {
  if (rec.notStarted !== undefined) {
    if (why === 'client') return 'cancelled by the client before it started: it never ran';
    return why === 'timeout' ? 'the client request timed out before it started: it never ran' : 'the connection was lost before it started: it never ran';
  }
  return 'cancelled by the client: interrupted (Ctrl-C, then its process group was signalled)';
}

function outcomeOf(rec: CommandRecord | TaskRecord): string {
  if (rec.state === 'running') return 'still running';
  if (rec.kind === 'command' && rec.notStarted !== undefined) return 'never started';
  return 'interrupted';
}
