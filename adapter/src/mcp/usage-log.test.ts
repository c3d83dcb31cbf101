import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UsageLog } from './usage-log.js';

describe('usage log (batched writes, issue 10)', () => {
  it('keeps every record, in order, 0600, written by close at the latest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-usage-'));
    try {
      const log = new UsageLog(join(dir, 'logs', 'usage.jsonl'));
      for (let i = 0; i < 500; i++) log.write({ ts: 't', tool: 'read', principal: 'p', era: 'stdio', request_id: String(i), status: 'succeeded', error_code: null, duration_ms: 1, bytes: i });
      await log.close();
      const lines = readFileSync(log.path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request_id: string });
      assert.deepEqual(lines.map((l) => l.request_id), Array.from({ length: 500 }, (_, i) => String(i)));
      assert.equal(statSync(log.path).mode & 0o777, 0o600);
      log.write({ ts: 't', tool: 'read', principal: 'p', era: 'stdio', request_id: 'late', status: 'succeeded', error_code: null, duration_ms: 1, bytes: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
