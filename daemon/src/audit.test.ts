import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AuditLog } from './audit.js';

const lines = (p: string): { event: string; n: number }[] =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as { event: string; n: number });

describe('audit log (docs/command-policy.md "Audit")', () => {
  it('rotates before a line would pass maxBytes, keeping `keep` old files and every line whole', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-audit-'));
    try {
      const path = join(dir, 'logs', 'audit.jsonl');
      const log = new AuditLog(path, { maxBytes: 1000, keep: 2 });
      for (let n = 0; n < 60; n++) log.append({ event: 'execute.run', principal: 'owner', remote_session_id: 'rs_x', n });
      log.close();
      for (const p of [path, `${path}.1`, `${path}.2`]) {
        assert.ok(statSync(p).size <= 1000, `${p} stays within maxBytes`);
        assert.equal(statSync(p).mode & 0o777, 0o600);
      }
      assert.equal(existsSync(`${path}.3`), false, 'no more than keep old files');
      // The newest lines, in order, across .2 → .1 → current, with nothing torn.
      const kept = [...lines(`${path}.2`), ...lines(`${path}.1`), ...lines(path)].map((l) => l.n);
      assert.equal(kept[kept.length - 1], 59);
      assert.deepEqual(kept, Array.from({ length: kept.length }, (_, i) => 60 - kept.length + i));
      assert.ok(kept.length < 60, 'the oldest generation was dropped');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reopens when an external logrotate moved the file away', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-audit-'));
    try {
      const path = join(dir, 'audit.jsonl');
      const log = new AuditLog(path);
      log.append({ event: 'a', principal: 'p', remote_session_id: 'r' });
      renameSync(path, `${path}.old`);
      log.append({ event: 'b', principal: 'p', remote_session_id: 'r' });
      log.close();
      assert.deepEqual(lines(path).map((l) => l.event), ['b']);
      assert.deepEqual(lines(`${path}.old`).map((l) => l.event), ['a']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
