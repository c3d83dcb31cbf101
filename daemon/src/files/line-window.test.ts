import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FactsCache, factsFromBytes, loadFacts } from './file-facts.js';
import { openRegularFile } from './file-kind.js';
import { readByteWindow, readTextWindow, type WindowRequest } from './line-window.js';

const req = (r: Partial<WindowRequest>): WindowRequest => ({ offset: 0, lineByteOffset: 0, limit: Number.POSITIVE_INFINITY, budgetBytes: 1024 * 1024, ...r });

describe('windowed reads (issue 4; field failure #15)', () => {
  const dir = mkdtempSync('/tmp/hf-win-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lines 1-3 of a 1002-line file come back as exactly 3 lines', async () => {
    const text = Array.from({ length: 1002 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const f = factsFromBytes('f.txt', Buffer.from(text));
    const w = await readTextWindow(f, req({ offset: 0, limit: 3 }));
    assert.equal(w.content, 'line 1\nline 2\nline 3\n');
    assert.equal(w.lines, 3);
    assert.deepEqual(w.next, { offset: 3, line_byte_offset: 0 });
    const mid = await readTextWindow(f, req({ offset: 499, limit: 2 }));
    assert.equal(mid.content, 'line 500\nline 501\n');
    const tail = await readTextWindow(f, req({ offset: -2 }));
    assert.equal(tail.content, 'line 1001\nline 1002\n');
    assert.equal(tail.firstLine, 1000);
    assert.equal(tail.next, null);
  });

  it('a window cut inside a long line continues inside it (offset + line_byte_offset)', async () => {
    const long = 'x'.repeat(3000);
    const f = factsFromBytes('f.txt', Buffer.from(`a\n${long}\nb\n`));
    const w1 = await readTextWindow(f, req({ offset: 1, budgetBytes: 1024 }));
    assert.equal(w1.content.length, 1024);
    assert.equal(w1.partialLast, true);
    assert.deepEqual(w1.next, { offset: 1, line_byte_offset: 1024 });
    const w2 = await readTextWindow(f, req({ offset: 1, lineByteOffset: 1024, budgetBytes: 1024 }));
    assert.deepEqual(w2.next, { offset: 1, line_byte_offset: 2048 });
    const w3 = await readTextWindow(f, req({ offset: 1, lineByteOffset: 2048, budgetBytes: 1024 }));
    assert.equal(w3.content, `${'x'.repeat(952)}\nb\n`);
    assert.equal(w3.next, null);
    const w4 = await readTextWindow(f, req({ offset: 1, lineByteOffset: 2048, limit: 1, budgetBytes: 1024 }));
    assert.deepEqual(w4.next, { offset: 2, line_byte_offset: 0 });
    // a budget never splits a UTF-8 character
    const euros = factsFromBytes('e.txt', Buffer.from('€'.repeat(1000)));
    const e = await readTextWindow(euros, req({ budgetBytes: 1000 }));
    assert.equal(e.content, '€'.repeat(333));
    assert.deepEqual(e.next, { offset: 0, line_byte_offset: 999 });
  });

  it('CRLF content is shown LF-normalised and a budget never splits a CRLF', async () => {
    const f = factsFromBytes('f.txt', Buffer.from('ab\r\ncd\r\n'));
    const w = await readTextWindow(f, req({ budgetBytes: 3 }));
    assert.equal(w.content, 'ab\n');
    assert.deepEqual(w.next, { offset: 1, line_byte_offset: 0 });
  });

  it('the last window of a 2 GB sparse file is read in constant memory', async () => {
    const path = join(dir, 'sparse.log');
    const fd = openSync(path, 'w');
    const head = Array.from({ length: 1000 }, (_, i) => `boot ${i}\n`).join('');
    writeSync(fd, head);
    const size = 2 * 1024 * 1024 * 1024;
    const tail = Array.from({ length: 60 }, (_, i) => `tail line ${i + 1}\n`).join('');
    ftruncateSync(fd, size - tail.length - 1);
    writeSync(fd, `\n${tail}`, size - tail.length - 1);
    closeSync(fd);
    const rssBefore = process.memoryUsage().rss;
    const file = openRegularFile(path, 'sparse.log');
    try {
      const started = Date.now();
      const facts = await loadFacts(file, 'sparse.log', new FactsCache());
      assert.equal(facts.size, size);
      assert.equal(facts.sha256, null, 'files over the hash cap are not hashed');
      assert.equal(facts.kind, 'text');
      const w = await readTextWindow(facts, req({ offset: -50 }));
      assert.equal(w.content, Array.from({ length: 50 }, (_, i) => `tail line ${i + 11}\n`).join(''));
      assert.equal(w.next, null);
      const grown = process.memoryUsage().rss - rssBefore;
      assert.ok(grown < 64 * 1024 * 1024, `RSS grew by ${grown} bytes`);
      assert.ok(Date.now() - started < 5000);
      // the binary view of the same idea: the last KiB by byte offset
      const last = await readByteWindow(facts.raw, -1024, 1024);
      assert.equal(last.bytes.length, 1024);
      assert.equal(last.next, null);
      assert.ok(last.bytes.toString().endsWith('tail line 60\n'));
    } finally {
      closeSync(file.fd);
    }
  });

  it('a streamed (8 MiB+) file gets the same windows as an in-memory one', async () => {
    const path = join(dir, 'big.txt');
    const text = Array.from({ length: 1_000_000 }, (_, i) => `row ${i}\r\n`).join('');
    writeFileSync(path, text);
    const file = openRegularFile(path, 'big.txt');
    try {
      const facts = await loadFacts(file, 'big.txt', new FactsCache());
      assert.equal(facts.bytes, null);
      assert.equal(facts.totalLines, 1_000_000);
      assert.equal(facts.format.line_ending, 'CRLF');
      assert.equal(facts.sha256, factsFromBytes('big.txt', Buffer.from(text)).sha256);
      const w = await readTextWindow(facts, req({ offset: 300_000, limit: 2 }));
      assert.equal(w.content, 'row 300000\nrow 300001\n');
      const t = await readTextWindow(facts, req({ offset: -1 }));
      assert.equal(t.content, 'row 999999\n');
    } finally {
      closeSync(file.fd);
    }
  });
});
