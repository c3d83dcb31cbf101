import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { homeLayout } from '@holdfast/shared/paths';
import type { TaskRecord } from '@holdfast/shared/protocol';
import type { SessionManager } from '../sessions/manager.js';
import { openDatabase } from '../store/db.js';
import { TasksRepo, type NewTask } from '../store/tasks-repo.js';
import { TaskSync } from './task-sync.js';

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
  after(() => db.close());
});
