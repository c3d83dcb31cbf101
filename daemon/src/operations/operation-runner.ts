import type { CallContext, ToolCallResult } from '@holdfast/shared/control';
import { OperationLimits } from '@holdfast/shared/constants';
import { HoldfastError, toWireError } from '@holdfast/shared/errors';
import { ENVELOPE_META_KEY } from '@holdfast/shared/tool-constants';
import type { Envelope } from '@holdfast/shared/tools';
import type { Logger } from '../log.js';
import type { EventsRepo } from '../store/events-repo.js';
import type { IdempotencyRepo } from '../store/idempotency-repo.js';
import { TERMINAL_STEP_STATES, type OperationRow, type OperationsRepo, type OperationState, type StepRow, type StepState } from '../store/operations-repo.js';
import type { TasksRepo } from '../store/tasks-repo.js';

/**
 * Runs one step's tool call through the daemon's one tool-call path (`callTool` in
 * tools/registry.ts), so policy, confirmation, audit, roles and events apply exactly as if it were
 * called alone; `event` is added to the call's event (operation and step ids).
 */
export type StepCaller = (tool: string, args: Record<string, unknown>, ctx: CallContext, signal: AbortSignal, event: Record<string, unknown>) => Promise<ToolCallResult>;

/** What the runner reads besides operations. */
export interface RunnerStores {
  operations: OperationsRepo;
  events: EventsRepo;
  tasks: TasksRepo;
  receipts: IdempotencyRepo;
}

interface LiveStep {
  row: StepRow;
  args: Record<string, unknown>;
  deps: string[];
  abort: AbortController | null;
  promise: Promise<void> | null;
  /** The execution task the step runs or follows, once known. */
  taskId: string | null;
}

interface LiveOp {
  id: string;
  sessionId: string;
  workspace: string;
  ctx: CallContext;
  steps: Map<string, LiveStep>;
  running: Set<string>;
  cancelling: boolean;
  finished: boolean;
}

/** Longest single wait of a step that follows a running execute task, ms (below the request ceiling). */
const FOLLOW_WAIT_MS = 100_000;
/** A step whose command waits for input is looked at again after this, ms. */
const AWAITING_INPUT_PAUSE_MS = 5000;

/**
 * Whether a step runs a command in the session's terminal (a foreground `execute(action="run")`):
 * the guardian runs one foreground command at a time and refuses a second with
 * `COMMAND_ALREADY_RUNNING` (DESIGN §5), so such steps of one operation take turns.
 */
export function usesTerminal(s: { row: { tool: string }; args: Record<string, unknown> }): boolean {
  return s.row.tool === 'execute' && (s.args.action ?? 'run') === 'run' && s.args.background !== true;
}

/** Resolves after `ms` or when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The §6.3 envelope of a tool result (`structuredContent`, or `_meta` for a pass-through tool). */
export function resultEnvelope(r: ToolCallResult): Envelope | null {
  return ((r._meta?.[ENVELOPE_META_KEY] ?? r.structuredContent) as Envelope | undefined) ?? null;
}

/** A failed step result made from an error (the call itself threw, which callTool never does). */
function errorResult(err: unknown): ToolCallResult {
  const w = toWireError(err);
  const envelope: Envelope = { status: 'failed', type: 'error', context: {}, data: null, error: { code: w.code, message: w.message, retryable: w.retryable }, hints: {}, actions: [] };
  return { content: [{ type: 'text', text: `${w.code}: ${w.message}` }], structuredContent: envelope as unknown as Record<string, unknown>, isError: true };
}

/**
 * The step state a final result leaves (issue 12): only `succeeded` lets dependents start. A call
 * that ran a command succeeds only when the command exited 0 (execute answers `succeeded` for any
 * exit code: it did run).
 */
export function stateOf(env: Envelope | null, r: ToolCallResult): StepState {
  const status = env?.status ?? (r.isError ? 'failed' : 'succeeded');
  const data = (env?.data ?? {}) as { exit_code?: unknown; signal?: unknown };
  if (status === 'succeeded' && ('exit_code' in data || typeof data.signal === 'string') && data.exit_code !== 0) return 'failed';
  if (status === 'succeeded' || status === 'accepted') return 'succeeded';
  if (status === 'waiting_confirmation') return 'waiting_confirmation';
  if (status === 'interrupted') return 'interrupted';
  return 'failed';
}

/**
 * The operation engine (issue 12, docs/operations.md). Each live operation is a dependency graph
 * of steps: a pending step starts once every step it depends on succeeded (at most
 * {@link OperationLimits.CONCURRENCY_MAX} at once), and is skipped when one failed or was skipped
 * (cancelled or interrupted when one was). A step whose call answers `accepted` with an
 * `execution_task_id` keeps running while it follows that task (`execute(action="attach")`); one
 * that answers `waiting_confirmation` waits — the whole operation is then `waiting_confirmation` —
 * until `confirm` runs its confirmed call, or the user's confirmed call of the same task (made
 * directly) is seen and followed. When nothing runs or waits any more the operation ends:
 * `succeeded` (every step did), `cancelled`, `interrupted`, else `completed_with_issues`; the
 * terminal state is stored with the event that records it and never changes.
 *
 * Every change is persisted (operations-repo.ts) before anyone is told. After a daemon restart
 * {@link recover} continues what can be continued: a running step that follows an execute task
 * the guardian still has keeps following it; other running steps are `interrupted`, and so are the
 * pending steps of an operation that has nothing left to follow.
 */
export class OperationRunner {
  private readonly live = new Map<string, LiveOp>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private watcher: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly stores: RunnerStores,
    private readonly call: StepCaller,
    private readonly log: Logger,
  ) {}

  /** Starts a stored operation (just inserted by `operation_batch`). */
  start(id: string): void {
    const op = this.load(id);
    if (op) this.schedule(op);
  }

  /** True while the operation is being run by this daemon. */
  isLive(id: string): boolean {
    return this.live.has(id);
  }

  /**
   * After a daemon start: continues every operation that was not terminal (see the class
   * comment). Never throws.
   */
  recover(): { resumed: number; interrupted: number } {
    let resumed = 0;
    let interrupted = 0;
    for (const row of this.stores.operations.unfinished()) {
      try {
        const op = this.load(row.id);
        if (!op) continue;
        let keep = false;
        for (const s of op.steps.values()) {
          if (s.row.state === 'waiting_confirmation') keep = true;
          if (s.row.state !== 'running') continue;
          const task = this.followableTask(op, s);
          if (task !== null) {
            keep = true;
            s.taskId = task;
            this.launch(op, s, null, task);
          } else {
            this.setStep(op, s, { state: 'interrupted', ended_at: Date.now(), error: 'holdfastd restarted while this step ran' });
          }
        }
        if (!keep) {
          for (const s of op.steps.values()) {
            if (s.row.state === 'pending') this.setStep(op, s, { state: 'interrupted', ended_at: Date.now(), error: 'holdfastd restarted before this step started' });
          }
        }
        if (keep) resumed++;
        else interrupted++;
        this.schedule(op);
      } catch (err) {
        this.log.warn('operation recovery failed', { operation_id: row.id, error: (err as Error).message });
      }
    }
    return { resumed, interrupted };
  }

  /**
   * Resolves once the operation is terminal or waiting for a confirmation, after `ms`, or when
   * `signal` aborts — whichever comes first.
   */
  async waitSettled(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    const settled = (): boolean => {
      const row = this.stores.operations.get(id);
      return !row || row.state !== 'running';
    };
    const until = Date.now() + ms;
    while (!settled() && Date.now() < until && !signal?.aborted && !this.stopped) {
      await new Promise<void>((resolve) => {
        let set = this.listeners.get(id);
        if (!set) this.listeners.set(id, (set = new Set()));
        const done = (): void => {
          clearTimeout(timer);
          set.delete(done);
          if (set.size === 0) this.listeners.delete(id);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, until - Date.now()));
        set.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /**
   * Cancels an operation and returns once every running step has stopped: pending and waiting
   * steps are cancelled at once; a step running or following an execute task has its task stopped
   * (kill escalation of its process group) and is waited for (bounded by
   * {@link OperationLimits.CANCEL_WAIT_MS}). A terminal operation is left as it is.
   */
  async cancel(id: string): Promise<void> {
    const op = this.live.get(id) ?? this.load(id);
    if (!op) return;
    op.cancelling = true;
    const now = Date.now();
    for (const s of op.steps.values()) {
      if (s.row.state === 'pending' || s.row.state === 'waiting_confirmation') this.setStep(op, s, { state: 'cancelled', ended_at: now, error: 'cancelled' });
    }
    const running = [...op.steps.values()].filter((s) => op.running.has(s.row.step_id));
    await Promise.all(running.map((s) => this.stopTask(op, s)));
    for (const s of running) s.abort?.abort(new HoldfastError('CANCELLED', 'the operation was cancelled'));
    const settled = Promise.all(running.map((s) => s.promise ?? Promise.resolve()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise<void>((r) => (timer = setTimeout(r, OperationLimits.CANCEL_WAIT_MS)))]);
    clearTimeout(timer);
    // A task that started while the cancel ran (its call had not created it yet) is stopped too.
    await Promise.all(running.map((s) => this.stopTask(op, s)));
    for (const s of running) {
      if (!TERMINAL_STEP_STATES.has(s.row.state)) {
        op.running.delete(s.row.step_id);
        this.setStep(op, s, { state: 'cancelled', ended_at: Date.now(), error: 'cancelled; the step did not stop in time' });
      }
    }
    this.schedule(op);
  }

  /**
   * Runs a `waiting_confirmation` step's confirmed call (the continuation its result offered, with
   * `user_confirmed: true`) after the user agreed.
   * @throws HoldfastError BAD_REQUEST when the step is not waiting or offers no confirmed call.
   */
  confirm(id: string, stepId: string): void {
    const op = this.live.get(id) ?? this.load(id);
    const s = op?.steps.get(stepId);
    if (!op || !s) throw new HoldfastError('BAD_REQUEST', `operation ${id} has no step "${stepId}"`);
    if (s.row.state !== 'waiting_confirmation') throw new HoldfastError('BAD_REQUEST', `step "${stepId}" is ${s.row.state}, not waiting_confirmation`, { retryable: false });
    const env = s.row.result ? resultEnvelope(JSON.parse(s.row.result) as ToolCallResult) : null;
    const confirmed = env?.actions.find((a) => a.tool === s.row.tool && a.arguments.user_confirmed === true);
    if (!confirmed) throw new HoldfastError('BAD_REQUEST', `step "${stepId}" offers no confirmed call to run`, { retryable: false });
    this.stores.operations.setState(op.id, 'running');
    this.launch(op, s, { ...confirmed.arguments, remote_session_id: op.sessionId }, null);
    this.notify(op.id);
  }

  /** Stops scheduling (the daemon is stopping): running calls are left to the next daemon. */
  stop(): void {
    this.stopped = true;
    if (this.watcher) clearInterval(this.watcher);
    this.watcher = null;
    for (const set of this.listeners.values()) for (const fn of [...set]) fn();
  }

  // ---- internals ---------------------------------------------------------------------------

  private load(id: string): LiveOp | null {
    const existing = this.live.get(id);
    if (existing) return existing;
    const row: OperationRow | undefined = this.stores.operations.get(id);
    if (!row || (row.state !== 'running' && row.state !== 'waiting_confirmation') || row.call_context === null) return null;
    const steps = new Map<string, LiveStep>();
    for (const r of this.stores.operations.steps(id)) {
      steps.set(r.step_id, { row: r, args: JSON.parse(r.arguments) as Record<string, unknown>, deps: JSON.parse(r.depends_on) as string[], abort: null, promise: null, taskId: r.execution_task_id });
    }
    const op: LiveOp = { id, sessionId: row.session_id, workspace: row.workspace, ctx: JSON.parse(row.call_context) as CallContext, steps, running: new Set(), cancelling: false, finished: false };
    this.live.set(id, op);
    return op;
  }

  private setStep(op: LiveOp, s: LiveStep, change: Parameters<OperationsRepo['updateStep']>[2]): void {
    if (this.stopped) return;
    const seq = this.stores.operations.updateStep(op.id, s.row.step_id, change);
    s.row = {
      ...s.row,
      ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined && v !== null)),
      state_sequence: seq,
    } as StepRow;
    this.notify(op.id);
  }

  private notify(id: string): void {
    for (const fn of [...(this.listeners.get(id) ?? [])]) fn();
  }

  /** The execution task a running step follows, when its guardian may still have it; else null. */
  private followableTask(op: LiveOp, s: LiveStep): string | null {
    if (s.row.tool !== 'execute') return null;
    const task = this.taskOf(op, s);
    if (task === null) return null;
    const row = this.stores.tasks.get(task);
    return row && row.session_id === op.sessionId && row.state !== 'waiting_confirmation' && row.state !== 'failed' ? task : null;
  }

  /** The execution task of an execute step: recorded, through its idempotency receipt, or named by its arguments. */
  private taskOf(op: LiveOp, s: LiveStep): string | null {
    if (s.taskId) return s.taskId;
    if (s.row.tool !== 'execute') return null;
    const key = s.row.idempotency_key;
    if (key) {
      const receipt = this.stores.receipts.get('execute', op.sessionId, key);
      if (receipt) return (JSON.parse(receipt.receipt) as { execution_task_id: string }).execution_task_id;
    }
    const action = s.args.action ?? 'run';
    return action !== 'run' && typeof s.args.execution_task_id === 'string' ? s.args.execution_task_id : null;
  }

  private schedule(op: LiveOp): void {
    if (this.stopped || op.finished) return;
    const now = Date.now();
    // Dependents of a step that did not succeed never start.
    for (let changed = true; changed; ) {
      changed = false;
      for (const s of op.steps.values()) {
        if (s.row.state !== 'pending') continue;
        const blocker = s.deps.map((d) => op.steps.get(d)!).find((d) => TERMINAL_STEP_STATES.has(d.row.state) && d.row.state !== 'succeeded');
        if (!blocker && !op.cancelling) continue;
        const why = op.cancelling ? 'cancelled' : blocker!.row.state;
        const state: StepState = why === 'cancelled' ? 'cancelled' : why === 'interrupted' ? 'interrupted' : 'skipped';
        const error = op.cancelling ? 'cancelled' : `step "${blocker!.row.step_id}" ${blocker!.row.state}`;
        this.setStep(op, s, { state, ended_at: now, error });
        changed = true;
      }
    }
    // The session has one terminal: foreground `execute` steps take turns on it, in request order,
    // while every other step runs beside them (a turn is not a dependency: a failed command does
    // not skip the next one).
    let terminalBusy = [...op.running].some((id) => usesTerminal(op.steps.get(id)!));
    for (const s of op.steps.values()) {
      if (op.running.size >= OperationLimits.CONCURRENCY_MAX) break;
      if (s.row.state !== 'pending' || op.cancelling) continue;
      if (!s.deps.every((d) => op.steps.get(d)!.row.state === 'succeeded')) continue;
      if (usesTerminal(s)) {
        if (terminalBusy) continue;
        terminalBusy = true;
      }
      this.launch(op, s, s.args, null);
    }
    const waiting = [...op.steps.values()].some((s) => s.row.state === 'waiting_confirmation');
    if (op.running.size > 0) {
      this.stores.operations.setState(op.id, 'running');
    } else if (waiting) {
      this.stores.operations.setState(op.id, 'waiting_confirmation');
      this.armWatcher();
    } else {
      this.finish(op);
    }
    this.notify(op.id);
  }

  private finish(op: LiveOp): void {
    const states = [...op.steps.values()].map((s) => s.row.state);
    const state: OperationState = states.every((x) => x === 'succeeded')
      ? 'succeeded'
      : states.includes('cancelled')
        ? 'cancelled'
        : states.includes('interrupted')
          ? 'interrupted'
          : 'completed_with_issues';
    const counts: Record<string, number> = {};
    for (const x of states) counts[x] = (counts[x] ?? 0) + 1;
    op.finished = true;
    this.live.delete(op.id);
    this.stores.operations.finish(op.id, state, (seq) =>
      this.stores.events.append({
        session_id: op.sessionId,
        workspace: op.workspace,
        kind: 'operation.finished',
        tool: 'operation_batch',
        status: state,
        data: { operation_id: op.id, state, state_sequence: seq, steps: counts },
      }),
    );
  }

  /**
   * Starts a step's call (`args`), or — with `followTask` — resumes following an execute task it
   * started before (recovery, or a confirmation given directly).
   */
  private launch(op: LiveOp, s: LiveStep, args: Record<string, unknown> | null, followTask: string | null): void {
    const abort = new AbortController();
    s.abort = abort;
    op.running.add(s.row.step_id);
    if (s.row.state !== 'running') this.setStep(op, s, { state: 'running', started_at: s.row.started_at ?? Date.now() });
    const event = { operation_id: op.id, step_id: s.row.step_id };
    s.promise = (async () => {
      let result: ToolCallResult;
      try {
        let callArgs = args;
        if (callArgs && s.row.tool === 'execute' && (callArgs.action ?? 'run') === 'run' && s.row.idempotency_key && callArgs.idempotency_key === undefined) {
          // Keyed, so the task is found again after a restart (and a repeat never starts it twice).
          callArgs = { ...callArgs, idempotency_key: s.row.idempotency_key };
        }
        result = followTask !== null ? await this.attach(op, followTask, abort.signal, event) : await this.call(s.row.tool, callArgs!, op.ctx, abort.signal, event);
        for (;;) {
          if (this.stopped) return;
          const env = resultEnvelope(result);
          const task = env?.context.execution_task_id ?? null;
          if (task !== null && task !== s.taskId) {
            s.taskId = task;
            this.setStep(op, s, { execution_task_id: task });
          }
          if (env?.status !== 'accepted' || task === null) break;
          // A command waiting for input answers at once: look again after a pause, not in a loop.
          if (env.type === 'execute.awaiting_input' && !op.cancelling) await pause(AWAITING_INPUT_PAUSE_MS, abort.signal);
          if (op.cancelling) await this.stopTask(op, s);
          result = await this.attach(op, task, op.cancelling ? new AbortController().signal : abort.signal, event, op.cancelling ? 0 : FOLLOW_WAIT_MS);
          if (op.cancelling) break;
        }
      } catch (err) {
        result = errorResult(err);
      }
      if (this.stopped) return;
      op.running.delete(s.row.step_id);
      const env = resultEnvelope(result);
      let state = stateOf(env, result);
      if (op.cancelling && state !== 'succeeded') state = 'cancelled';
      const terminal = TERMINAL_STEP_STATES.has(state);
      const exit = (env?.data as { exit_code?: unknown } | null)?.exit_code;
      const error = env?.error ? `${env.error.code}: ${env.error.message}`.slice(0, 500) : state === 'failed' && exit !== undefined ? `exit code ${String(exit)}` : undefined;
      this.setStep(op, s, {
        state,
        result: JSON.stringify(result),
        ...(terminal ? { ended_at: Date.now() } : {}),
        ...(error ? { error } : {}),
      });
      this.schedule(op);
    })();
  }

  /** `execute(action="attach")` of a task, as an ordinary call of the operation's caller. */
  private attach(op: LiveOp, task: string, signal: AbortSignal, event: Record<string, unknown>, waitMs = FOLLOW_WAIT_MS): Promise<ToolCallResult> {
    return this.call('execute', { action: 'attach', remote_session_id: op.sessionId, execution_task_id: task, yield_time_ms: waitMs }, op.ctx, signal, event);
  }

  /** Stops the execute task a step runs, if it has one that is running (an ordinary `execute(action="stop")`). */
  private async stopTask(op: LiveOp, s: LiveStep): Promise<void> {
    const task = this.taskOf(op, s);
    if (task === null || this.stores.tasks.get(task)?.state !== 'running') return;
    try {
      await this.call('execute', { action: 'stop', remote_session_id: op.sessionId, execution_task_id: task }, op.ctx, new AbortController().signal, { operation_id: op.id, step_id: s.row.step_id });
    } catch (err) {
      this.log.warn('stopping a step failed', { operation_id: op.id, step_id: s.row.step_id, error: (err as Error).message });
    }
  }

  /** Looks at waiting steps while any exist: an execute step confirmed directly (its task now runs) is followed. */
  private armWatcher(): void {
    if (this.watcher || this.stopped) return;
    this.watcher = setInterval(() => {
      let waiting = false;
      for (const op of this.live.values()) {
        for (const s of op.steps.values()) {
          if (s.row.state !== 'waiting_confirmation') continue;
          waiting = true;
          const task = s.row.tool === 'execute' ? this.taskOf(op, s) : null;
          const row = task !== null ? this.stores.tasks.get(task) : undefined;
          if (task !== null && row && row.state !== 'waiting_confirmation' && row.state !== 'failed') {
            this.stores.operations.setState(op.id, 'running');
            this.launch(op, s, null, task);
            this.notify(op.id);
          }
        }
      }
      if (!waiting && this.watcher) {
        clearInterval(this.watcher);
        this.watcher = null;
      }
    }, OperationLimits.WATCH_INTERVAL_MS);
    this.watcher.unref();
  }
}
