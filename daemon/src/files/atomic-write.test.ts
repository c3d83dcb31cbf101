import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../store/db.js';
import { TempFilesRepo } from '../store/temp-files-repo.js';
import { stageWrite, sweepTempFiles, writeFileAtomic, type TempJournal } from './atomic-write.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const SIZE = 50 * 1024 * 1024;

/** A writer in its own process: writes 50 MB atomically (journal in the DB); optionally pauses mid-write. */
function writer(dbPath: string, target: string, pauseAt: number | null): ReturnType<typeof spawn> {
  const atomic = new URL('./atomic-write.js', import.meta.url).href;
  const db = new URL('../store/db.js', import.meta.url).href;
  const repo = new URL('../store/temp-files-repo.js', import.meta.url).href;
  const code = `
    const { writeFileAtomic } = await import(${JSON.stringify(atomic)});
    const { openDatabase } = await import(${JSON.stringify(db)});
    const { TempFilesRepo } = await import(${JSON.stringify(repo)});
    const journal = new TempFilesRepo(openDatabase(${JSON.stringify(dbPath)}));
    const data = Buffer.alloc(${SIZE}, 0x42);
    const pauseAt = ${JSON.stringify(pauseAt)};
    process.stdout.write('START\\n');
    await writeFileAtomic(${JSON.stringify(target)}, data, { journal, onChunk: async (n) => {
      if (pauseAt !== null && n >= pauseAt) { process.stdout.write('MID\\n'); await new Promise((r) => setTimeout(r, 60000)); }
    } });
    process.stdout.write('DONE\\n');
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
}

function waitFor(child: ReturnType<typeof spawn>, word: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ${word} within ${timeoutMs} ms (got ${out})`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(word)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

function exited(child: ReturnType<typeof spawn>): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

const temps = (dir: string): string[] => readdirSync(dir).filter((n) => n.includes('.hf-') && n.endsWith('.tmp'));

describe('atomic writes (issue 4)', () => {
  const dir = mkdtempSync('/tmp/hf-atomic-');
  const dbPath = join(dir, 'state.db');
  const target = join(dir, 'big.bin');
  const old = Buffer.from('the old content\n');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces a file with new bytes and keeps its mode, leaving no temp file', async () => {
    writeFileSync(target, old);
    chmodSync(target, 0o640);
    await writeFileAtomic(target, Buffer.from('new\n'), { mode: statSync(target).mode & 0o7777 });
    assert.equal(readFileSync(target, 'utf8'), 'new\n');
    assert.equal(statSync(target).mode & 0o777, 0o640);
    assert.deepEqual(temps(dir), []);
  });

  it('a 50 MB write killed (SIGKILL) half-way leaves the old file; the journal sweep removes its temp file', async () => {
    writeFileSync(target, old);
    const child = writer(dbPath, target, 16 * 1024 * 1024);
    await waitFor(child, 'MID', 20_000);
    child.kill('SIGKILL');
    await exited(child);
    assert.equal(sha(readFileSync(target)), sha(old), 'the target still has its old bytes');
    assert.equal(temps(dir).length, 1, 'the killed writer could not remove its temp file');
    const repo = new TempFilesRepo(openDatabase(dbPath));
    const removed = sweepTempFiles(repo);
    assert.equal(removed.length, 1);
    assert.deepEqual(temps(dir), []);
    assert.deepEqual(repo.list(), []);
  });

  it('killed at arbitrary moments, the target is always old or new, never a mix; nothing is left after the sweep', async () => {
    const fresh = sha(Buffer.alloc(SIZE, 0x42));
    const seen = new Set<string>();
    for (const delayMs of [0, 5, 20, 60, 150, 400]) {
      writeFileSync(target, old);
      const child = writer(dbPath, target, null);
      await waitFor(child, 'START', 20_000);
      await new Promise((r) => setTimeout(r, delayMs)); // the point of the kill, not a synchronisation
      child.kill('SIGKILL');
      await exited(child);
      const now = sha(readFileSync(target));
      assert.ok(now === sha(old) || now === fresh, `target is neither old nor new after a kill at ${delayMs} ms`);
      seen.add(now === fresh ? 'new' : 'old');
      sweepTempFiles(new TempFilesRepo(openDatabase(dbPath)));
      assert.deepEqual(temps(dir), []);
    }
    // let one write finish: the new bytes
    writeFileSync(target, old);
    const child = writer(dbPath, target, null);
    await waitFor(child, 'DONE', 30_000);
    await exited(child);
    assert.equal(sha(readFileSync(target)), fresh);
    assert.deepEqual(temps(dir), []);
  });

  it('a journal row left after the rename (an edit killed before recording it) is dropped by the sweep, nothing else touched', async () => {
    // The edit tool deletes its temp files' rows in the transaction that records the edit
    // (docs/performance.md, item 8): a crash between the rename and that commit leaves such a row.
    const repo = new TempFilesRepo(openDatabase(dbPath));
    const deferred: string[] = [];
    const lazy: TempJournal = { begin: (p) => repo.begin(p), end: (p) => void deferred.push(p), list: () => repo.list() };
    writeFileSync(target, old);
    const staged = await stageWrite(target, Buffer.from('edited\n'), { journal: lazy, syncDir: false });
    await staged.commit();
    assert.deepEqual(deferred, [staged.temp], 'the row is left for the caller to delete');
    assert.deepEqual(repo.list().map((r) => r.path), [staged.temp]);
    // "crash" here: the row names a temp file that no longer exists
    assert.deepEqual(sweepTempFiles(repo), []);
    assert.deepEqual(repo.list(), []);
    assert.equal(readFileSync(target, 'utf8'), 'edited\n');
    assert.deepEqual(temps(dir), []);
  });
});
