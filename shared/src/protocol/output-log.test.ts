import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lostOutputNote, readLogFolder, SegmentLog } from './output-log.js';

describe('SegmentLog on a full disk', () => {
  const root = mkdtempSync(join(tmpdir(), 'hf-seglog-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a write that fails with ENOSPC is dropped and counted, never thrown; once space is back a note marks the gap', () => {
    const dir = join(root, 'pty');
    mkdirSync(dir);
    // The segment file is /dev/full: every write fails with ENOSPC, like a full filesystem.
    const seg = join(dir, '0000000000000000.log');
    symlinkSync('/dev/full', seg);
    const errors: string[] = [];
    const log = new SegmentLog(dir, 1 << 20, 4, (e) => errors.push(String(e.code)));
    assert.doesNotThrow(() => log.append(Buffer.from('lost one\n')));
    log.append(Buffer.from('lost two\n'));
    assert.equal(log.end, 0, 'offsets count only bytes on disk');
    assert.equal(log.lostBytes, 18);
    assert.deepEqual(errors, ['ENOSPC'], 'reported once per run of failures');
    // Space is back.
    unlinkSync(seg);
    log.append(Buffer.from('kept\n'));
    const text = readLogFolder(dir, 0, 1 << 20).data.toString();
    assert.equal(text, lostOutputNote(18).toString() + 'kept\n');
    assert.equal(log.end, text.length);
    assert.equal(log.read(0, 1 << 20).data.toString(), text);
    assert.equal(log.lostBytes, 18);
  });
});
