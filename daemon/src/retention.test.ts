import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HoldfastConfig } from '@holdfast/shared/config';
import { guardianPaths, homeLayout } from '@holdfast/shared/paths';
import type { Logger } from './log.js';
import { Retention } from './retention.js';
import { openDatabase } from './store/db.js';
import { EnvironmentSnapshotsRepo } from './store/environment-snapshots-repo.js';
import { EventsRepo, EventsRetention } from './store/events-repo.js';
import { OperationsRepo } from './store/operations-repo.js';
import { RetentionQueries } from './store/retention-queries.js';
import { SessionsRepo } from './store/sessions-repo.js';
import { TasksRepo } from './store/tasks-repo.js';
import { TempFilesRepo } from './store/temp-files-repo.js';
import { createWorkServices } from './work/services.js';

const DAY = 86_400_000;
const quiet = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;

describe('retention (issue 5 tasks, issue 11 every clock)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hf-retention-'));
  const layout = homeLayout(dir, {});
  const db = openDatabase(layout.db);
  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const tasks = new TasksRepo(db);
  const sessions = new SessionsRepo(db);
  const events = new EventsRepo(db);
  const work = createWorkServices(db, layout, new TempFilesRepo(db));
  const now = Date.now();
  let clocks = HoldfastConfig.parse({}).retention;
  const retention = new Retention(
    {
      layout,
      queries: new RetentionQueries(db),
      tasks,
      plans: work.plans,
      artifacts: work.artifacts,
      artifactStore: work.store,
      events: new EventsRetention(db),
      operations: new OperationsRepo(db),
      snapshots: new EnvironmentSnapshotsRepo(db),
    },
    () => clocks,
    quiet,
  );

  const task = (id: string, session: string, created: number, state: 'exited' | 'running' = 'exited'): void => {
    tasks.insert({
      id, session_id: session, workspace: 'ws', principal: 'p', kind: 'background', origin: 'command', task_name: null, command: 'true', argv: null, cwd: null, env_keys: null,
      purpose: null, idempotency_key: null, fingerprint: 'f', policy_decision: 'allow', policy_rule: null, diagnostics: null, state, created_at: created, expires_at: null,
    });
    const logs = join(guardianPaths(layout, session).tasksDir, id);
    mkdirSync(logs, { recursive: true });
    writeFileSync(join(logs, 'out'), 'x');
  };
  const plan = (id: string, session: string, state: 'open' | 'delivered', updated: number, cites: string[]): void => {
    work.plans.addPlan({ id, session_id: session, workspace: 'ws', title: id, goal: 'g', state, revision: 1, created_at: updated, updated_at: updated, delivered_at: state === 'delivered' ? updated : null });
    work.plans.addTask({ id: `${id}_t`, plan_id: id, position: 0, local_id: 'a', title: 't', acceptance: null, depends_on: '[]', state: 'completed', block_reason: null, created_at: updated, updated_at: updated, started_at: updated, completed_at: updated });
    cites.forEach((ref, seq) => work.plans.addEvidence({ plan_task_id: `${id}_t`, seq, plan_id: id, kind: 'execute', ref_id: ref, text: null, exit_code: 0, detail: null, recorded_at: updated }));
  };

  it('removes what is old on each clock and keeps running tasks, what open plans cite and live sessions\' artifacts and events', async () => {
    sessions.insert({ id: 'rs_old', principal: 'p', workspace: 'ws', workspace_root: '/', affinity: 'workspace', session_key: null }, now - 40 * DAY);
    sessions.update('rs_old', { state: 'closed', ended_at: now - 35 * DAY });
    sessions.insert({ id: 'rs_cited', principal: 'p', workspace: 'ws', workspace_root: '/', affinity: 'workspace', session_key: null }, now - 40 * DAY);
    sessions.update('rs_cited', { state: 'closed', ended_at: now - 35 * DAY });
    sessions.insert({ id: 'rs_live', principal: 'p', workspace: 'ws', workspace_root: '/', affinity: 'workspace', session_key: null }, now - 40 * DAY);
    sessions.update('rs_live', { state: 'running' });
    task('task_old', 'rs_live', now - 31 * DAY);
    task('task_running', 'rs_live', now - 31 * DAY, 'running');
    task('task_new', 'rs_live', now - DAY);
    task('task_cited', 'rs_cited', now - 31 * DAY);
    task('task_delivered', 'rs_live', now - 31 * DAY);
    plan('pl_open', 'rs_live', 'open', now - 100 * DAY, ['task_cited']);
    plan('pl_delivered', 'rs_live', 'delivered', now - 100 * DAY, ['task_delivered']);
    mkdirSync(guardianPaths(layout, 'rs_old').sessionDir, { recursive: true });
    for (const [id, s] of [['ar_old', 'rs_old'], ['ar_live', 'rs_live']] as const) {
      await work.store.save(s, id, Buffer.from(id));
      work.artifacts.insert({ id, session_id: s, workspace: 'ws', title: id, kind: 'data', source_path: null, mime_type: 'text/plain', byte_length: id.length, sha256: 'x', source_encoding: 'utf-8', source_bom: 0, created_at: now - 40 * DAY });
    }
    events.append({ session_id: 'rs_old', workspace: 'ws', kind: 'session.closed' }, now - 40 * DAY);
    events.append({ session_id: 'rs_live', workspace: 'ws', kind: 'session.running' }, now - 40 * DAY);
    events.append({ kind: 'daemon.started' }, now - 40 * DAY);
    events.append({ kind: 'daemon.started' }, now);
    work.progress.insert({ session_id: 'rs_old', status: 'milestone', current: 'x', result: null, at: now - 40 * DAY });
    // Operations (issue 12): one finished 10 days ago (past operation_days 7), one finished today, one running.
    const ops = new OperationsRepo(db);
    const op = (id: string, at: number, end: boolean): void => {
      ops.insert(
        { id, session_id: 'rs_live', workspace: 'ws', principal: 'p', run_id: null, steps_sha256: 'x', state: 'running', state_sequence: 1, call_context: '{}', created_at: at, updated_at: at },
        [{ operation_id: id, step_id: 's', position: 0, tool: 'read', arguments: '{}', depends_on: '[]', state: 'pending', state_sequence: 1, idempotency_key: null }],
      );
      if (end) ops.finish(id, 'succeeded', () => 1, at);
    };
    op('op_old', now - 10 * DAY, true);
    op('op_new', now, true);
    op('op_running', now - 10 * DAY, false);

    const preview = retention.preview(now);
    assert.deepEqual(preview, { tasks: 2, sessions: 1, events: 2, artifacts: 1, artifact_bytes: 6, plans: 1, receipts: 0, operations: 1 });
    assert.deepEqual(retention.sweep(now), preview, 'a sweep removes exactly what the preview said');
    assert.equal(tasks.get('task_old'), undefined);
    assert.equal(tasks.get('task_delivered'), undefined, 'a delivered plan no longer holds its evidence');
    assert.equal(existsSync(join(guardianPaths(layout, 'rs_live').tasksDir, 'task_old')), false, 'the task logs go with the row');
    assert.ok(tasks.get('task_running'), 'a running task is never removed');
    assert.ok(tasks.get('task_new'));
    assert.ok(tasks.get('task_cited'), 'an undelivered plan keeps what it cites');
    assert.ok(existsSync(join(guardianPaths(layout, 'rs_cited').tasksDir, 'task_cited')), '… and its logs');
    assert.equal(existsSync(guardianPaths(layout, 'rs_old').sessionDir), false);
    assert.equal(work.plans.getPlan('pl_delivered'), undefined);
    assert.ok(work.plans.getPlan('pl_open'), 'an open plan of a live session stays');
    assert.equal(work.artifacts.get('ar_old'), undefined);
    assert.equal(existsSync(work.store.fileOf('rs_old', 'ar_old')), false);
    assert.ok(work.artifacts.get('ar_live'), 'artifacts of live sessions stay');
    assert.equal(work.progress.latest('rs_old'), undefined, 'progress of an old ended session goes with its events');
    assert.deepEqual(events.listForSession('rs_live').map((e) => e.kind), ['session.running'], 'events of live sessions stay');
    assert.ok(ops.get('op_old')?.results_expired_at, 'an old operation keeps a tombstone');
    assert.deepEqual(ops.steps('op_old'), [], '… without its step results');
    assert.equal(ops.steps('op_new').length, 1);
    assert.equal(ops.steps('op_running').length, 1, 'a running operation is never expired');

    clocks = { ...clocks, task_days: 0, event_days: 0, artifact_days: 0, plan_days: 0, operation_days: 0 };
    assert.deepEqual(retention.sweep(now + 1000 * DAY), { tasks: 0, sessions: 0, events: 0, artifacts: 0, artifact_bytes: 0, plans: 0, receipts: 0, operations: 0 }, '0 keeps everything');
  });
});
