import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { guardianPaths, homeLayout } from '@holdfast/shared/paths';
import type { TaskRecord } from '@holdfast/shared/protocol';
import type { Logger } from '../log.js';
import type { SessionManager } from '../sessions/manager.js';
import { openDatabase } from '../store/db.js';
import { SessionsRepo } from '../store/sessions-repo.js';
import { TasksRepo, type NewTask } from '../store/tasks-repo.js';
import { TaskRetention } from './retention.js';
import { TaskSync } from './task-sync.js';

const DAY = 86_400_000;
const quiet = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;

function row(id: string, session: string, created: number, extra: Partial<NewTask> = {}): NewTask {
  return {
    id, session_id: session, workspace: 'ws', principal: 'p', kind: 'background', origin: 'command', task_name: null, command: 'x', argv: null, cwd: null,
    env_keys: null, purpose: null, idempotency_key: null, fingerprint: 'f', policy_decision: 'allow', policy_rule: null, diagnostics: null,
    state: 'exited', created_at: created, expires_at: null, ...extra,
  };
}

describe('task rows (issue 5)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hf-tasks-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const layout = homeLayout(dir, {});
  const db = openDatabase(join(dir, 'state', 'holdfast.db'));
  const tasks = new TasksRepo(db);
  const sessions = new SessionsRepo(db);

  it('a finished row is never taken back by an older running record; offsets only grow', () => {
    const sync = new TaskSync(layout, tasks, {} as SessionManager);
    tasks.insert(row('task_A', 'rs_1', Date.now(), { state: 'running' }));
    const rec = (state: 'running' | 'exited', out: number): TaskRecord => ({
      kind: 'task', id: 'task_A', argv: ['bash', '-c', 'x'], cwd: '/', pid: 1, pgid: 1, state, startedAt: 1, ...(state === 'exited' ? { endedAt: 2, exitCode: 3 } : {}),
      stdout: { start: 0, end: out }, stderr: { start: 0, end: 0 },
    });
    sync.apply(rec('exited', 7)); // g.done first …
    sync.apply(rec('running', 0)); // … then the answer that started it
    const r = tasks.get('task_A')!;
    assert.equal(r.state, 'exited');
    assert.equal(r.exit_code, 3);
    assert.equal(r.stdout_end, 7);
  });

  it('retention removes old finished rows with their logs and old ended sessions, and keeps the rest', () => {
    const now = Date.now();
    sessions.insert({ id: 'rs_old', principal: 'p', workspace: 'ws', workspace_root: '/', affinity: 'workspace', session_key: null }, now - 40 * DAY);
    sessions.update('rs_old', { state: 'closed', ended_at: now - 35 * DAY });
    sessions.insert({ id: 'rs_new', principal: 'p', workspace: 'ws', workspace_root: '/', affinity: 'workspace', session_key: null }, now);
    sessions.update('rs_new', { state: 'running' });
    tasks.insert(row('task_old', 'rs_new', now - 31 * DAY));
    tasks.insert(row('task_oldrunning', 'rs_new', now - 31 * DAY, { state: 'running' }));
    tasks.insert(row('task_new', 'rs_new', now - DAY));
    const oldLogs = join(guardianPaths(layout, 'rs_new').tasksDir, 'task_old');
    mkdirSync(oldLogs, { recursive: true });
    writeFileSync(join(oldLogs, 'x'), 'x');
    mkdirSync(guardianPaths(layout, 'rs_old').sessionDir, { recursive: true });

    const ret = new TaskRetention(layout, tasks, sessions, () => 30, quiet);
    assert.deepEqual(ret.sweep(now), { tasks: 1, sessions: 1 });
    assert.equal(tasks.get('task_old'), undefined);
    assert.ok(tasks.get('task_oldrunning'), 'a running task is never removed');
    assert.ok(tasks.get('task_new'));
    assert.equal(existsSync(oldLogs), false);
    assert.equal(existsSync(guardianPaths(layout, 'rs_old').sessionDir), false);
    assert.deepEqual(new TaskRetention(layout, tasks, sessions, () => 0, quiet).sweep(now + 1000 * DAY), { tasks: 0, sessions: 0 }, '0 keeps everything');
    db.close();
  });
});
