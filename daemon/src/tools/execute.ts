import { HoldfastError } from '@holdfast/shared/errors';
import { ADAPTER_RETRY_KEY_PREFIX } from '@holdfast/shared/constants';
import { newId } from '@holdfast/shared/ids';
import { KEY_SEQUENCES, LinkTimeouts, type CommandRecord, type TaskRecord } from '@holdfast/shared/protocol';
import type { AuditEntry } from '../audit.js';
import { diskSource, guardianSource, type ByteSource } from '../execution/byte-source.js';
import { fingerprint, foregroundLine, judgedEnv, resolveCall, type ExecuteArgs, type ResolvedCall } from '../execution/call.js';
import { awaitInterrupts, onRunCancelled } from '../execution/cancel.js';
import { confirmationOutcome, confirmationSummary, refusedOutcome } from '../execution/policy-outcome.js';
import { requireTaskRow } from '../execution/task-lookup.js';
import { commandScreen } from '../execution/command-screen.js';
import { describeTask, type OutputOffsets } from '../execution/task-result.js';
import { evaluateCommand, evaluateStdin, type PolicyVerdict } from '../policy/commands.js';
import { effectiveCommandRules } from '../policy/effective-rules.js';
import { requireSessionAccess, roleAtLeast, type SessionRole } from '../sessions/access.js';
import type { GuardianLink } from '../sessions/link.js';
import type { SessionRow } from '../store/sessions-repo.js';
import type { TaskRow } from '../store/tasks-repo.js';
import type { ToolContext } from './context.js';
import { action, failure, type ToolOutcome } from './envelope.js';
import { secretsLink } from './secret-provide.js';

/** Default wait of `run`, `attach` and `stdin`, ms (issue 5). */
export const DEFAULT_YIELD_MS = 10_000;
const RECEIPT_TOOL = 'execute';
/** A capped wait that came back this close to the cap is reported as capped, ms. */
const CAP_SLACK_MS = 1000;
/** A wait ends this long before the configured request timeout, ms. */
const REQUEST_MARGIN_MS = 5000;

/**
 * `execute` (DESIGN §5, issue 5): `run` a command in the session's PTY (`command`), as a
 * background task (`background: true`), as an exact vector (`argv` + `shell: false`) or a project
 * task (`task`); `attach` (wait again), `status`, `stop` (signal escalation of its process group)
 * and `stdin` (text and named keys to the running foreground command).
 *
 * Every run goes through the command policy first (deny → refused; confirm → `waiting_confirmation`
 * until the same call comes back with `user_confirmed: true` and the confirmation's
 * `idempotency_key`, bound to the exact command/argv, cwd, env and purpose, before it expires),
 * then the audit line is written — if it cannot be, nothing runs — then the `tasks` row, then the
 * guardian is asked. (The confirmation lifetime is `security.commands.confirm_ttl_s`, default 600.) An `idempotency_key` seen before with the same arguments returns that task
 * instead of running again; with other arguments it is `IDEMPOTENCY_CONFLICT`.
 *
 * Every action needs the editor role on the session (issue 14); confirming a call another
 * principal is waiting on needs the approver role (the call then runs once, for whoever repeats it).
 */
export async function executeHandler(args: ExecuteArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const callStart = Date.now();
  const { session, role } = requireSessionAccess(ctx, args.remote_session_id, 'editor');
  // Answer before the adapter's request timeout (DESIGN §6.2, 408) can cut the call off.
  const ceiling = Math.max(1000, ctx.services.config.config.limits.request_timeout_ms - REQUEST_MARGIN_MS);
  // A client that gets no progress notifications gives up after 60 s (SDK v1 default): the adapter
  // caps each wait of such a call (CallContext.wait_cap_ms, issue 8).
  const yieldMs = Math.min(args.yield_time_ms ?? DEFAULT_YIELD_MS, LinkTimeouts.MAX_WAIT_MS, ceiling, ctx.call.wait_cap_ms ?? Number.POSITIVE_INFINITY);
  const o = await dispatch(args, session, role, ctx, yieldMs, callStart);
  const cap = ctx.call.wait_cap_ms;
  const asked = args.yield_time_ms ?? DEFAULT_YIELD_MS;
  if (o.envelope.status === 'accepted' && cap !== undefined && asked > cap && Date.now() - callStart >= cap - CAP_SLACK_MS && o.envelope.hints.awaiting_input !== true) {
    // Say why it came back early: the client cannot be kept waiting longer (issue 8).
    return {
      ...o,
      envelope: { ...o.envelope, hints: { ...o.envelope.hints, wait_capped_ms: cap } },
      text: `${o.text}\n[waited ${cap / 1000} s, the most for a client that receives no progress notifications; attach to wait again]`,
    };
  }
  return o;
}

function dispatch(args: ExecuteArgs, session: SessionRow, role: SessionRole, ctx: ToolContext, yieldMs: number, callStart: number): Promise<ToolOutcome> {
  switch (args.action) {
    case 'run':
      return run(args, session, role, ctx, yieldMs, callStart);
    case 'attach': {
      const row = requireTask(args, session, ctx);
      return follow(row, session, ctx, yieldMs, args, continueFrom(row, args.offset));
    }
    case 'status': {
      const row = requireTask(args, session, ctx);
      return follow(row, session, ctx, 0, args, continueFrom(row, args.offset));
    }
    case 'stop':
      return stop(requireTask(args, session, ctx), session, ctx);
    case 'stdin':
      return stdin(args, session, ctx, yieldMs);
  }
}

// ---- run -------------------------------------------------------------------------------------

const DECISION_RANK: Record<PolicyVerdict['decision'], number> = { allow: 0, confirm: 1, deny: 2 };

/** The strictest of several verdicts (deny over confirm over allow; the first of equals). */
function strictest(verdicts: PolicyVerdict[]): PolicyVerdict {
  return verdicts.reduce((a, b) => (DECISION_RANK[b.decision] > DECISION_RANK[a.decision] ? b : a));
}

async function run(args: ExecuteArgs, session: SessionRow, role: SessionRole, ctx: ToolContext, yieldMs: number, callStart: number): Promise<ToolOutcome> {
  const ex = ctx.services.execution;
  const rs = session.id;
  const project = () => ex.projects.get(session.workspace_root);
  const call = resolveCall(args, session.workspace_root, project);
  const rules = effectiveCommandRules(ctx.services.config.config.security.commands, project());
  // The env argument is judged with the command (one verdict, one confirmation for both); relative
  // paths are judged against the one-off cwd, else where the session's shell is now (`rm -rf ..`
  // from a workspace under $HOME is the home folder).
  const cwd = call.cwd ?? (await ctx.services.sessions.shellCwd(rs)) ?? session.workspace_root;
  const env = judgedEnv(call);
  const verdict = strictest([
    evaluateCommand({ ...(call.argv ? { argv: call.argv } : { command: call.command! }), env, cwd, sessionShell: call.kind === 'foreground' }, rules),
    // A project task's script bodies are what really runs: judged like commands typed here.
    ...call.taskScripts.map((body) => evaluateCommand({ command: body, env, cwd }, rules)),
  ]);
  const audit = auditBase(call, session, ctx);

  if (verdict.decision === 'deny') {
    try {
      ex.audit.append({ ...audit, event: 'execute.refused', decision: 'deny', reason: verdict.reason });
    } catch {
      // nothing runs either way
    }
    return refusedOutcome(verdict, args, rs);
  }
  if (call.secrets) await requireSecrets(call.secrets, rs, ctx);

  const fp = fingerprint(call);
  const key = args.idempotency_key;
  let existing: TaskRow | undefined;
  if (key !== undefined) {
    // The same key being started by another call right now: wait until its task exists (issue 5).
    const slot = startingSlot(rs, key);
    for (let p = ex.starting.get(slot); p !== undefined; p = ex.starting.get(slot)) await p;
    const receipt = ex.receipts.get(RECEIPT_TOOL, rs, key);
    if (receipt) {
      if (receipt.args_sha256 !== fp) {
        throw new HoldfastError('IDEMPOTENCY_CONFLICT', `idempotency_key ${key} was used for a different command, cwd, env or purpose in this session; use a new key for a new command`, {
          retryable: false,
          details: { idempotency_key: key },
        });
      }
      existing = ex.tasks.get((JSON.parse(receipt.receipt) as { execution_task_id: string }).execution_task_id);
      // A run that never started leaves nothing to return: the call runs afresh.
      if (existing?.state === 'failed') existing = undefined;
    }
  }
  if (existing && existing.state !== 'waiting_confirmation') {
    // The same call again: the receipt is the task itself; wait on it like attach (a background
    // task's first answer did not wait either). Its output from the start: the first answer may
    // never have reached the caller.
    return replayed(await follow(existing, session, ctx, existing.kind === 'background' ? 0 : yieldMs, args, {}), key !== undefined && !key.startsWith(ADAPTER_RETRY_KEY_PREFIX));
  }

  let id = existing?.id ?? newId('executionTask');
  if (verdict.decision === 'confirm') {
    const now = Date.now();
    const pending = existing;
    const valid = pending !== undefined && (pending.expires_at ?? 0) > now;
    if (args.user_confirmed === true && valid && pending.principal !== ctx.call.principal && !roleAtLeast(role, 'approver')) {
      throw new HoldfastError(
        'ROLE_REQUIRED',
        `${pending.id} is waiting for principal "${pending.principal}"'s confirmation; confirming another principal's call needs the approver role on ${rs} (you hold ${role}); ask its owner to grant it`,
        { retryable: false, details: { role, need: 'approver', execution_task_id: pending.id } },
      );
    }
    if (!(args.user_confirmed === true && valid)) {
      const confirmKey = key ?? newId('confirmation');
      const expires = now + rules.confirm_ttl_s * 1000;
      if (pending) {
        ex.tasks.update(pending.id, { expires_at: expires });
      } else {
        ex.tasks.insert(newRow(id, call, session, ctx, fp, verdict, 'waiting_confirmation', { expires_at: expires, idempotency_key: confirmKey }));
        ex.receipts.put({ tool: RECEIPT_TOOL, session_id: rs, key: confirmKey, args_sha256: fp, receipt: JSON.stringify({ execution_task_id: id }), created_at: now });
      }
      const summary = confirmationSummary(call, verdict.segments.find((s) => s.decision === 'confirm')?.rule ?? null);
      try {
        ex.audit.append({ ...audit, event: 'execute.confirmation_requested', execution_task_id: id, decision: 'confirm', reason: verdict.reason });
      } catch {
        // asking runs nothing
      }
      return confirmationOutcome(ex.tasks.get(id)!, args, confirmKey, summary, verdict, pending !== undefined && !valid && args.user_confirmed === true);
    }
  }
  if (existing) id = existing.id;
  return start(id, call, verdict, fp, existing, session, ctx, yieldMs, args, callStart);
}

function newRow(id: string, call: ResolvedCall, session: SessionRow, ctx: ToolContext, fp: string, v: PolicyVerdict, state: 'waiting_confirmation' | 'running', extra: Partial<TaskRow>) {
  const decisive = v.segments.find((s) => s.decision === v.decision);
  return {
    id,
    session_id: session.id,
    workspace: session.workspace,
    principal: ctx.call.principal,
    kind: call.kind,
    origin: call.origin,
    task_name: call.taskName,
    command: call.command,
    argv: call.argv ? JSON.stringify(call.argv) : null,
    cwd: call.cwd,
    env_keys: call.env || call.secrets ? JSON.stringify([...Object.keys(call.env ?? {}), ...(call.secrets ?? [])]) : null,
    purpose: call.purpose,
    fingerprint: fp,
    policy_decision: v.decision,
    policy_rule: decisive?.rule ?? null,
    diagnostics: call.diagnostics === null ? null : JSON.stringify(call.diagnostics),
    state,
    created_at: Date.now(),
    expires_at: null,
    idempotency_key: null,
    ...extra,
  };
}

function auditBase(call: ResolvedCall, session: SessionRow, ctx: ToolContext): Pick<AuditEntry, 'principal' | 'remote_session_id' | 'kind' | 'command' | 'argv' | 'task' | 'cwd' | 'env_keys' | 'purpose' | 'request_id'> {
  return {
    principal: ctx.call.principal,
    remote_session_id: session.id,
    kind: call.kind,
    ...(call.argv ? { argv: call.argv } : { command: call.command! }),
    ...(call.taskName ? { task: call.taskName } : {}),
    ...(call.cwd ? { cwd: call.cwd } : {}),
    ...(call.env ? { env_keys: Object.keys(call.env) } : {}),
    ...(call.secrets ? { secrets: call.secrets } : {}),
    ...(call.purpose ? { purpose: call.purpose } : {}),
    ...(ctx.call.request_id ? { request_id: ctx.call.request_id } : {}),
  };
}

async function start(
  id: string,
  call: ResolvedCall,
  verdict: PolicyVerdict,
  fp: string,
  pending: TaskRow | undefined,
  session: SessionRow,
  ctx: ToolContext,
  yieldMs: number,
  args: ExecuteArgs,
  callStart: number,
): Promise<ToolOutcome> {
  const ex = ctx.services.execution;
  const rs = session.id;
  const key = args.idempotency_key;
  // The yield counts from the call's start, whatever the shell's start-up takes (issue 9, item 5).
  const remaining = (): number => Math.max(0, yieldMs - (Date.now() - callStart));
  // Until the row, the receipt and the guardian's command exist, a repeated call with this key
  // waits (run() above) instead of starting the command a second time.
  const slot = key !== undefined ? startingSlot(rs, key) : null;
  let settle = (): void => undefined;
  if (slot !== null) {
    let resolve!: () => void;
    const started = new Promise<void>((r) => (resolve = r));
    ex.starting.set(slot, started);
    settle = () => {
      if (ex.starting.get(slot) === started) ex.starting.delete(slot);
      resolve();
    };
  }
  try {
    const link = await ctx.services.sessions.ensureLink(rs);
    // The audit line comes first: if it cannot be written, nothing runs (issue 5).
    ex.audit.append({
      ...auditBase(call, session, ctx),
      event: 'execute.run',
      execution_task_id: id,
      decision: verdict.decision,
      ...(verdict.segments.length ? { rule: verdict.segments.map((s) => s.rule).join('; ') } : {}),
      ...(pending ? { confirmed: true, ...(pending.principal !== ctx.call.principal ? { requested_by: pending.principal } : {}) } : {}),
    });
    const now = Date.now();
    if (pending) ex.tasks.update(id, { state: 'running', started_at: now, expires_at: null });
    else ex.tasks.insert(newRow(id, call, session, ctx, fp, verdict, 'running', { started_at: now, idempotency_key: key ?? null }));
    // The receipt is written with the row, before the guardian is asked: a retry after a lost
    // answer (adapter killed, daemon restarted) finds this task instead of running it again.
    if (key !== undefined && !pending) putReceipt(ctx, rs, key, fp, id);
    const notStarted = (error: string): void => {
      // A confirmed call that could not start stays confirmable; a plain one is marked failed.
      if (pending) ex.tasks.update(id, { state: 'waiting_confirmation', started_at: null, expires_at: Date.now() + ctx.services.config.config.security.commands.confirm_ttl_s * 1000, error });
      else ex.tasks.update(id, { state: 'failed', ended_at: Date.now(), error });
    };

    if (call.kind === 'foreground') {
      // A command just cancelled in this session is still being interrupted: let it end first.
      await awaitInterrupts(ex, rs);
      // A cancel (the client's, or its connection gone) reaches the guardian with the request:
      // what was not typed yet never runs; what runs is interrupted on an explicit cancel (issue 9).
      const cancelled = (err: unknown): never => {
        if (ctx.signal.aborted) onRunCancelled(ex, link, { principal: ctx.call.principal, sessionId: rs }, id, ctx.signal.reason);
        throw err;
      };
      const line = foregroundLine(call);
      // With a key the command is started without waiting, so a repeated call can wait on it
      // (g.wait) as soon as this one is released; then this call waits the same way.
      const params = { id, command: line, ...(line !== call.command ? { display: call.command! } : {}), waitMs: slot !== null ? 0 : remaining(), ...(call.secrets ? { secrets: call.secrets } : {}) };
      const r = await link.exec(params, ctx.signal).catch((err: unknown) => {
        if (ctx.signal.aborted) return cancelled(err);
        notStarted((err as Error).message);
        throw err;
      });
      if (!r.ok) {
        notStarted(r.reason === 'cancelled' ? 'cancelled before it started' : r.reason);
        if (r.reason === 'command_already_running' && r.running) return alreadyRunning(r.running, args, rs);
        if (r.reason === 'cancelled') throw new HoldfastError('CANCELLED', 'the call was cancelled before the command started; it did not run');
        throw new HoldfastError(r.reason === 'shell_exited' ? 'SESSION_EXITED' : 'GUARDIAN_UNAVAILABLE', `the session's shell is not available (${r.reason}); reset it with session(action="reset_shell")`);
      }
      settle();
      let rec: CommandRecord | TaskRecord = r.cmd;
      // (A notice the guardian produces while this call waits — the shell fell back — comes with the next exec.)
      if (slot !== null && remaining() > 0 && rec.state === 'running') rec = await link.wait({ id, waitMs: remaining() }, ctx.signal).catch(cancelled);
      return afterRecord(rec, link, ctx, undefined, r.notice);
    }

    let rec: TaskRecord;
    try {
      const cwd = call.cwd ?? (await ctx.services.sessions.shellCwd(rs)) ?? session.workspace_root;
      rec = await link.spawn({ id, ...(call.argv ? { argv: call.argv } : { command: call.command! }), cwd, ...(call.env ? { env: call.env } : {}), ...(call.secrets ? { secrets: call.secrets } : {}) });
    } catch (err) {
      notStarted((err as Error).message);
      throw err;
    }
    settle();
    if (!call.background && yieldMs > 0) rec = (await link.wait({ id, waitMs: yieldMs })) as TaskRecord;
    return afterRecord(rec, link, ctx);
  } finally {
    settle();
  }
}

/**
 * Starts an exact-argv task for another tool the way `run` does once its policy check and
 * confirmation are done (issue 13: an executable skill): the audit line first (nothing runs if it
 * cannot be written), a `tasks` row, the guardian's spawn, then a wait of up to `yieldMs`. The
 * answer is `execute`'s (an `execution_task_id` to attach to while it runs).
 */
export function startArgvTask(call: ResolvedCall, verdict: PolicyVerdict, session: SessionRow, ctx: ToolContext, yieldMs: number): Promise<ToolOutcome> {
  if (!call.argv) throw new HoldfastError('INTERNAL', 'startArgvTask needs an argv call');
  const args: ExecuteArgs = { action: 'run', remote_session_id: session.id, argv: call.argv, shell: false, ...(call.purpose ? { purpose: call.purpose } : {}) };
  return start(newId('executionTask'), call, verdict, fingerprint(call), undefined, session, ctx, yieldMs, args, Date.now());
}

/**
 * Every named secret must be held by the session's guardian (issue 12), checked before anything is
 * recorded or confirmed; the guardian checks again when it starts the command.
 * @throws HoldfastError BAD_REQUEST (a guardian from before secrets), SECRET_NOT_FOUND.
 */
async function requireSecrets(names: string[], rs: string, ctx: ToolContext): Promise<void> {
  const link = await secretsLink(ctx.services.sessions, rs);
  const held = new Set((await link.secretList()).secrets.map((s) => s.name));
  const missing = names.filter((n) => !held.has(n));
  if (missing.length > 0) {
    throw new HoldfastError('SECRET_NOT_FOUND', `no secret ${missing.join(', ')} in session ${rs}; ask the user for it with secret_provide(action="request", name="${missing[0]}", purpose=…)`, {
      retryable: false,
      details: { missing },
    });
  }
}

/** Key of `ExecutionServices.starting` for one session and key. */
function startingSlot(rs: string, key: string): string {
  return `${rs}\0${key}`;
}

/**
 * Marks the answer to a repeated call with the same `idempotency_key` (issue 5). The text note is
 * only for a key the client chose (`clientKey`); the adapter's own retry key is not news to it.
 */
function replayed(o: ToolOutcome, clientKey: boolean): ToolOutcome {
  const id = o.envelope.context.execution_task_id;
  return {
    ...o,
    envelope: { ...o.envelope, hints: { ...o.envelope.hints, idempotent_replay: true } },
    text: `${id && clientKey ? `Same idempotency_key as an earlier call: this is its task ${id}, not a new run.\n` : ''}${o.text}`,
  };
}

function putReceipt(ctx: ToolContext, rs: string, key: string, fp: string, id: string): void {
  ctx.services.execution.receipts.put({ tool: RECEIPT_TOOL, session_id: rs, key, args_sha256: fp, receipt: JSON.stringify({ execution_task_id: id }), created_at: Date.now() });
}

/**
 * Shell built-ins whose whole point is the session shell's own state (its folder, variables,
 * options, functions): run as a background task (a separate process) they would change nothing.
 */
const SHELL_STATE_BUILTIN = /^\s*(?:cd|pushd|popd|export|unset|source|\.|alias|unalias|set|shopt|ulimit|umask|declare|typeset|readonly|local|hash|enable|trap|exit|logout)(?=\s|;|&|\||$)/;

/**
 * Whether a command starts with a built-in that changes the session shell's state
 * ({@link SHELL_STATE_BUILTIN}): `COMMAND_ALREADY_RUNNING` then offers no background run.
 */
export function changesShellState(command: string | undefined): boolean {
  return command !== undefined && SHELL_STATE_BUILTIN.test(command);
}

function alreadyRunning(running: CommandRecord, args: ExecuteArgs, rs: string): ToolOutcome {
  const { idempotency_key: _k, user_confirmed: _c, ...rest } = args;
  const stateful = args.shell !== false && changesShellState(args.command);
  const instead = stateful
    ? ' (this command changes the session shell itself, so it must run in the foreground)'
    : ' — or run this one with background=true';
  return failure(
    'execute.run',
    new HoldfastError('COMMAND_ALREADY_RUNNING', `another foreground command (${running.id}: ${running.command.slice(0, 200)}) is still running; wait for it, answer it or stop it${instead}`),
    {
      context: { remote_session_id: rs },
      data: { running: { execution_task_id: running.id, command: running.command } },
      actions: [
        action('execute', { action: 'attach', remote_session_id: rs, execution_task_id: running.id }, 'wait for the running command'),
        action('execute', { action: 'stop', remote_session_id: rs, execution_task_id: running.id }, 'stop the running command'),
        ...(stateful ? [] : [action('execute', { ...rest, action: 'run', remote_session_id: rs, background: true }, 'run this command as a background task')]),
      ],
    },
  );
}

/**
 * Where an `attach`/`status`/`stdin` result starts showing output (issue 8): at `offset` when the
 * caller gives one (for a piped task, 0 restarts both streams and another value is stdout's),
 * else after what the last result showed.
 */
function continueFrom(row: TaskRow, offset: number | undefined): OutputOffsets {
  if (row.kind === 'foreground') return { pty: offset ?? row.pty_shown ?? row.pty_start ?? 0 };
  if (offset === 0) return { stdout: 0, stderr: 0 };
  return { stdout: offset ?? row.stdout_shown ?? 0, stderr: row.stderr_shown ?? 0 };
}

/** Builds the result of a task and remembers how far it showed the output. */
async function describeAndRemember(ctx: ToolContext, facts: Parameters<typeof describeTask>[0]): Promise<ToolOutcome> {
  const d = await describeTask(facts);
  ctx.services.execution.tasks.update(facts.row.id, { pty_shown: d.shown.pty, stdout_shown: d.shown.stdout, stderr_shown: d.shown.stderr });
  return withLostOutput(d.outcome, facts.row.output_not_saved ?? undefined);
}

/**
 * Syncs a fresh guardian record into its row and builds the result: output from `from` (default its
 * start, issue 8), with the shell's news (issue 9).
 */
async function afterRecord(rec: CommandRecord | TaskRecord, link: GuardianLink, ctx: ToolContext, from?: OutputOffsets, notice?: string): Promise<ToolOutcome> {
  if (rec.kind === 'command') ctx.services.sessions.noteCwd(link.gid, rec.cwd);
  const row = ctx.services.execution.sync.apply(rec) ?? ctx.services.execution.tasks.get(rec.id)!;
  const awaiting = rec.kind === 'command' && rec.awaitingInput === true && rec.state === 'running';
  const screen = awaiting && rec.kind === 'command' ? await commandScreen(link, rec) : undefined;
  // Finished output is on disk already: read it there (no round trip); running output via the guardian.
  const source: ByteSource = row.state === 'running' ? guardianSource(link) : diskSource(ctx.services.layout, row.session_id);
  const o = await describeAndRemember(ctx, { row, source, awaitingInput: awaiting, ...(screen !== undefined ? { screen } : {}), ...(from ? { from } : {}) });
  return withShellNews(o, rec.kind === 'command' && rec.queued === true && row.state === 'running', notice);
}

/**
 * Tells the agent when output could not be saved (docs/sessions.md "A full disk"): the guardian
 * dropped `lost` bytes of this command's output because the disk holding the session's logs is
 * full. The command itself ran; only the record of its output is incomplete.
 */
function withLostOutput(o: ToolOutcome, lost: number | undefined): ToolOutcome {
  if (lost === undefined || lost <= 0) return o;
  const note =
    `Note: ${lost} bytes of this command's output were not saved — the disk holding the session's logs is full — so the output shown is incomplete ` +
    '(the command itself ran; its exit code stands). Free space (delete files, or move_out), then re-run it if you need all of its output.';
  return { ...o, envelope: { ...o.envelope, hints: { ...o.envelope.hints, output_not_saved_bytes: lost } }, text: `${note}\n${o.text}` };
}

/**
 * Adds what the agent must know about the shell itself (issue 9): the command is still queued
 * behind the shell's start-up; the shell skipped the user's rc files or was restarted (`notice`,
 * given once by the guardian).
 */
function withShellNews(o: ToolOutcome, queued: boolean, notice: string | undefined): ToolOutcome {
  if (!queued && notice === undefined) return o;
  const lines: string[] = [];
  const hints: Record<string, unknown> = { ...o.envelope.hints };
  if (notice !== undefined) {
    lines.push(`Note: ${notice}`);
    hints.shell_notice = notice;
  }
  if (queued) {
    lines.push("Queued: the session's shell is still loading its start-up files; the command is typed as soon as its prompt appears (attach to wait for it, stop to drop it).");
    hints.queued = true;
  }
  return { ...o, envelope: { ...o.envelope, hints }, text: `${lines.join('\n')}\n${o.text}` };
}

// ---- attach / status / stop ------------------------------------------------------------------

function requireTask(args: ExecuteArgs, session: SessionRow, ctx: ToolContext): TaskRow {
  return requireTaskRow(ctx.services.execution.tasks, args.execution_task_id, session.id, `action=${args.action}`);
}

/** `attach` (wait up to `waitMs`), `status` (no wait), and the answer to a repeated idempotent run; output from `from`. */
async function follow(row: TaskRow, session: SessionRow, ctx: ToolContext, waitMs: number, args: ExecuteArgs, from: OutputOffsets): Promise<ToolOutcome> {
  const ex = ctx.services.execution;
  if (row.state === 'waiting_confirmation') {
    const argv = row.argv ? (JSON.parse(row.argv) as string[]) : null;
    const call = { command: row.command, argv, taskName: row.task_name, cwd: row.cwd, purpose: row.purpose, background: row.kind === 'background', env: null };
    const original: ExecuteArgs = {
      action: 'run',
      remote_session_id: session.id,
      ...(argv ? { argv, shell: false } : row.task_name ? { task: row.task_name } : { command: row.command! }),
      ...(row.cwd ? { cwd: row.cwd } : {}),
      ...(row.purpose ? { purpose: row.purpose } : {}),
      ...(row.kind === 'background' ? { background: true } : {}),
    };
    return confirmationOutcome(row, original, row.idempotency_key ?? '', confirmationSummary(call, row.policy_rule), null, false);
  }
  if (row.state === 'running') {
    try {
      const link = await ctx.services.sessions.ensureLink(session.id);
      return await afterRecord(await link.wait({ id: row.id, waitMs }), link, ctx, from);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'SESSION_EXITED' || code === 'SESSION_NOT_FOUND') ex.sync.finaliseSession(session.id, null);
      else if (code === 'TASK_NOT_FOUND') ex.tasks.update(row.id, { state: 'interrupted', ended_at: Date.now(), error: 'the guardian no longer knows this task' });
      else throw err;
      row = ex.tasks.get(row.id)!;
    }
  }
  return describeAndRemember(ctx, { row, source: diskSource(ctx.services.layout, session.id), from });
}

async function stop(row: TaskRow, session: SessionRow, ctx: ToolContext): Promise<ToolOutcome> {
  if (row.state !== 'running') return follow(row, session, ctx, 0, { action: 'status', remote_session_id: session.id }, continueFrom(row, undefined));
  const link = await ctx.services.sessions.ensureLink(session.id);
  ctx.services.execution.audit.append({ event: 'execute.stop', principal: ctx.call.principal, remote_session_id: session.id, execution_task_id: row.id, kind: row.kind });
  return afterRecord(await link.stop(row.id), link, ctx, continueFrom(row, undefined));
}

// ---- stdin -----------------------------------------------------------------------------------

/**
 * `stdin`: text, then named keys, to the foreground command running in the terminal, named by
 * `execution_task_id` (it must be the guardian's current foreground command). Refused without that
 * id, when nothing or another command runs there (typed text would become a shell command that no
 * policy judged) and for piped tasks (their stdin is /dev/null). The text and keys are judged
 * first (policy/stdin.ts: one line of answer per call) — a refusal is `POLICY_DENIED` and nothing is
 * sent. The audit line records sizes and key names, never the text.
 */
async function stdin(args: ExecuteArgs, session: SessionRow, ctx: ToolContext, yieldMs: number): Promise<ToolOutcome> {
  if (args.text === undefined && (args.keys === undefined || args.keys.length === 0)) throw new HoldfastError('BAD_REQUEST', 'action=stdin needs text and/or keys');
  const unknown = (args.keys ?? []).filter((k) => !(k in KEY_SEQUENCES));
  if (unknown.length > 0) throw new HoldfastError('BAD_REQUEST', `unknown key ${unknown.join(', ')}; keys are ${Object.keys(KEY_SEQUENCES).join(', ')}`);
  const rs = session.id;
  // Judged before anything is sent: one line of answer, never what the shell would run afterwards.
  const judged = evaluateStdin({ ...(args.text !== undefined ? { text: args.text } : {}), ...(args.keys !== undefined ? { keys: args.keys } : {}) });
  if (judged.decision === 'deny') {
    try {
      ctx.services.execution.audit.append({ event: 'execute.stdin_refused', principal: ctx.call.principal, remote_session_id: rs, ...(args.execution_task_id ? { execution_task_id: args.execution_task_id } : {}), chars: args.text?.length ?? 0, keys: args.keys ?? [], reason: judged.reason });
    } catch {
      // nothing is sent either way
    }
    return failure('execute.stdin_refused', new HoldfastError('POLICY_DENIED', judged.reason, { retryable: false }), {
      context: { remote_session_id: rs, ...(args.execution_task_id ? { execution_task_id: args.execution_task_id } : {}) },
    });
  }
  const row = args.execution_task_id !== undefined ? requireTask(args, session, ctx) : undefined;
  if (row && row.kind !== 'foreground') throw new HoldfastError('BAD_REQUEST', `${row.id} is a piped task; its stdin is /dev/null. Only the terminal's foreground command takes input`);
  const link = await ctx.services.sessions.ensureLink(rs);
  const fg = (await link.status()).foreground;
  if (!row) {
    const what = fg ? `the terminal runs ${fg.id}: pass execution_task_id="${fg.id}" if the input is meant for it` : 'no command is running in the terminal';
    throw new HoldfastError('BAD_REQUEST', `action=stdin needs execution_task_id, the running command the input is for (${what}); input is never typed into an idle shell — to run a command use action=run`, {
      retryable: false,
    });
  }
  if (!fg || fg.id !== row.id) {
    const running = fg ? ` (the terminal runs ${fg.id} instead)` : ' (no command is running in the terminal)';
    throw new HoldfastError('BAD_REQUEST', `${row.id} is not running in the terminal${running}; stdin goes to a running program — to run a command use action=run`, {
      retryable: false,
    });
  }
  ctx.services.execution.audit.append({
    event: 'execute.stdin',
    principal: ctx.call.principal,
    remote_session_id: rs,
    execution_task_id: fg.id,
    chars: args.text?.length ?? 0,
    keys: args.keys ?? [],
  });
  // The guardian checks again, atomically with the write, that fg is still the running command.
  const sent = await link.input({ ...(args.text !== undefined ? { text: args.text } : {}), ...(args.keys !== undefined ? { keys: args.keys } : {}), forId: fg.id });
  if (!sent.ok) {
    try {
      ctx.services.execution.audit.append({ event: 'execute.stdin_not_sent', principal: ctx.call.principal, remote_session_id: rs, execution_task_id: fg.id, reason: 'the command ended first' });
    } catch {
      // nothing was sent either way
    }
    throw new HoldfastError('BAD_REQUEST', `${fg.id} ended before the input was sent; nothing was typed — read its result with action=status`, { retryable: false });
  }
  return afterRecord(await link.wait({ id: fg.id, waitMs: yieldMs }), link, ctx, continueFrom(row, undefined));
}
