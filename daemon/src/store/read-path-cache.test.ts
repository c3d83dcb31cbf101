import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from './db.js';
import { FileReadsRepo } from './file-reads-repo.js';
import { SessionRolesRepo } from './session-roles-repo.js';
import { SessionsRepo } from './sessions-repo.js';

/** The read path's SQLite work (issue 10): what is remembered, and what a re-read writes. */
describe('read path: session rows and read records', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hf-readpath-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'state.db'));
  const sessions = new SessionsRepo(db);
  const roles = new SessionRolesRepo(db, (id) => sessions.forget(id));
  sessions.insert({ id: 'rs1', principal: 'p', workspace: 'ws', workspace_root: '/w', affinity: 'workspace', session_key: null }, 1);

  it('a session row is read from SQLite once, and again after every write to it (here or by a handoff)', () => {
    const a = sessions.get('rs1')!;
    // A change behind the repository's back is not seen: the row comes from memory…
    db.prepare("UPDATE sessions SET workspace = 'elsewhere' WHERE id = 'rs1'").run();
    assert.equal(sessions.get('rs1')!.workspace, 'ws');
    // …each caller gets its own copy…
    a.state = 'closed';
    assert.equal(sessions.get('rs1')!.state, 'starting');
    // …and a write through the repository is seen at once.
    sessions.update('rs1', { state: 'running' }, 2);
    assert.deepEqual([sessions.get('rs1')!.state, sessions.get('rs1')!.workspace], ['running', 'elsewhere']);
    roles.handOff('rs1', 'p', 'q', null, 3);
    assert.equal(sessions.get('rs1')!.principal, 'q');
  });

  it('a row read inside a transaction that rolls back is not remembered', () => {
    sessions.forget('rs1');
    assert.throws(() =>
      db.transaction(() => {
        sessions.update('rs1', { state: 'closed' }, 4);
        assert.equal(sessions.get('rs1')!.state, 'closed');
        throw new Error('roll back');
      })(),
    );
    assert.equal(sessions.get('rs1')!.state, 'running');
  });

  it('an unchanged re-read writes nothing; a new window, a new sha or a failure to reset does', () => {
    const reads = new FileReadsRepo(db);
    const scope = { sessionId: 'rs1', reader: 'c1' };
    const changes = (fn: () => void): number => {
      const before = (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
      fn();
      return (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n - before;
    };
    assert.equal(changes(() => reads.recordRead(scope, 'a.ts', 'sha1', 'w1', 10)), 1);
    assert.equal(changes(() => assert.equal(reads.recordRead(scope, 'a.ts', 'sha1', 'w1', 11), true)), 0);
    assert.equal(changes(() => reads.recordRead(scope, 'a.ts', 'sha1', 'w2', 12)), 1);
    assert.equal(changes(() => reads.recordRead(scope, 'a.ts', 'sha2', 'w1', 13)), 1);
    // After a failed match, the same re-read must reset the counter: it writes.
    reads.recordMatchFailure(scope, 'a.ts');
    assert.equal(changes(() => reads.recordRead(scope, 'a.ts', 'sha2', 'w1', 14)), 1);
    assert.equal(reads.get(scope, 'a.ts')!.failed_matches, 0);
    assert.ok(reads.hasRead(scope, 'a.ts', 'sha2'));
  });

  it('read records come from memory until a write through the repository (match failures, resets, forget)', () => {
    const reads = new FileReadsRepo(db);
    const scope = { sessionId: 'rs1', reader: 'c2' };
    assert.equal(reads.get(scope, 'b.ts'), undefined);
    reads.recordRead(scope, 'b.ts', 'sha1', 'w1', 1);
    assert.equal(reads.get(scope, 'b.ts')!.sha256, 'sha1');
    db.prepare("UPDATE file_reads SET sha256 = 'behind' WHERE reader = 'c2'").run();
    assert.equal(reads.get(scope, 'b.ts')!.sha256, 'sha1', 'served from memory');
    assert.equal(reads.recordMatchFailure(scope, 'b.ts'), 1);
    assert.deepEqual([reads.get(scope, 'b.ts')!.sha256, reads.get(scope, 'b.ts')!.failed_matches], ['behind', 1]);
    reads.resetMatchFailures(scope, 'b.ts');
    assert.equal(reads.get(scope, 'b.ts')!.failed_matches, 0);
    reads.forget('rs1', 'b.ts');
    assert.equal(reads.get(scope, 'b.ts'), undefined);
    assert.equal(reads.hasRead(scope, 'b.ts', 'behind'), false);
  });
});
