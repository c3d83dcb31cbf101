import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, linkSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { HoldfastError } from '@holdfast/shared/errors';
import { openDatabase } from '../store/db.js';
import { TempFilesRepo } from '../store/temp-files-repo.js';
import { readBefore, writesInPlace } from '../tools/edit/plan.js';
import { stageInPlace, sweepWrites, writeInPlace } from './in-place-write.js';
import type { ResolvedPath } from './workspace-path.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const ids = (p: string): { dev: bigint; ino: bigint } => {
  const st = statSync(p, { bigint: true });
  return { dev: st.dev, ino: st.ino };
};
const leftovers = (dir: string): string[] => readdirSync(dir).filter((n) => n.includes('.hf-'));

/** A writer in its own process that copies 8 MiB in place and stops for good after the first chunk. */
function killedWriter(dbPath: string, target: string): ReturnType<typeof spawn> {
  const mod = new URL('./in-place-write.js', import.meta.url).href;
  const db = new URL('../store/db.js', import.meta.url).href;
  const repo = new URL('../store/temp-files-repo.js', import.meta.url).href;
  const code = `
    const { writeInPlace } = await import(${JSON.stringify(mod)});
    const { openDatabase } = await import(${JSON.stringify(db)});
    const { TempFilesRepo } = await import(${JSON.stringify(repo)});
    const { statSync } = await import('node:fs');
    const journal = new TempFilesRepo(openDatabase(${JSON.stringify(dbPath)}));
    const st = statSync(${JSON.stringify(target)}, { bigint: true });
    await writeInPlace(${JSON.stringify(target)}, Buffer.alloc(8 * 1024 * 1024, 0x4e), { dev: st.dev, ino: st.ino }, { journal, onChunk: async () => {
      process.stdout.write('MID\\n');
      await new Promise((r) => setTimeout(r, 60000));
    } });
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('in-place writes of hard-linked files (issue 9, item 9)', () => {
  const dir = mkdtempSync('/tmp/hf-inplace-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every name sees the new bytes; inode and mode are kept; nothing is left behind', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    writeFileSync(a, 'old content that is longer than the new one\n');
    chmodSync(a, 0o640);
    linkSync(a, b);
    const before = ids(a);
    await writeInPlace(a, Buffer.from('new\n'), before);
    assert.equal(readFileSync(b, 'utf8'), 'new\n');
    assert.deepEqual(ids(a), before);
    assert.equal(statSync(b).mode & 0o777, 0o640);
    assert.deepEqual(leftovers(dir), []);
  });

  it('a writer killed in the middle of the copy leaves a torn file that the start-up sweep completes', async () => {
    const dbPath = join(dir, 'state.db');
    const a = join(dir, 'big.bin');
    const b = join(dir, 'big-link.bin');
    writeFileSync(a, Buffer.alloc(8 * 1024 * 1024, 0x4f));
    linkSync(a, b);
    const child = killedWriter(dbPath, a);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('the writer never reached the copy')), 20_000);
      child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('MID')) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
    const torn = readFileSync(b);
    assert.notEqual(sha(torn), sha(Buffer.alloc(8 * 1024 * 1024, 0x4e)), 'not the new bytes yet');
    assert.notEqual(sha(torn), sha(Buffer.alloc(8 * 1024 * 1024, 0x4f)), 'not the old bytes either: torn');
    const r = sweepWrites(new TempFilesRepo(openDatabase(dbPath)));
    assert.equal(r.completed.length, 1);
    assert.equal(sha(readFileSync(b)), sha(Buffer.alloc(8 * 1024 * 1024, 0x4e)), 'completed through every name');
    assert.deepEqual(leftovers(dir), []);
  });

  it('a staged write that never reached the copy leaves the old bytes when aborted', async () => {
    const a = join(dir, 'staged.txt');
    writeFileSync(a, 'old\n');
    const s = await stageInPlace(a, Buffer.from('new\n'), ids(a));
    assert.equal(readFileSync(a, 'utf8'), 'old\n');
    await s.abort();
    assert.equal(readFileSync(a, 'utf8'), 'old\n');
    assert.deepEqual(leftovers(dir), []);
  });

  it('refuses to write into a file whose name now points to another inode', async () => {
    const a = join(dir, 'swapped.txt');
    writeFileSync(a, 'old\n');
    const planned = ids(a);
    writeFileSync(join(dir, 'other.txt'), 'someone else\n');
    renameSync(join(dir, 'other.txt'), a);
    await assert.rejects(writeInPlace(a, Buffer.from('new\n'), planned), (e: unknown) => e instanceof HoldfastError && e.code === 'SHA_MISMATCH');
    assert.equal(readFileSync(a, 'utf8'), 'someone else\n');
    assert.deepEqual(leftovers(dir), []);
  });

  it('a hard-linked file that cannot be written in place is refused before anything is written (HARD_LINKED)', async () => {
    // A running program cannot be opened for writing (ETXTBSY), whoever we are.
    const prog = join(dir, 'sleeper');
    writeFileSync(prog, readFileSync('/bin/sleep'));
    chmodSync(prog, 0o755);
    linkSync(prog, join(dir, 'sleeper-link'));
    const child = spawn(prog, ['30'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      const p = { root: realpathSync(dir), rel: 'sleeper', real: realpathSync(prog), abs: prog } as unknown as ResolvedPath;
      const before = readBefore(p);
      assert.throws(() => writesInPlace(before, p), (e: unknown) => e instanceof HoldfastError && e.code === 'HARD_LINKED' && /sleeper has 2 hard links and is a program that is running right now/.test(e.message));
      assert.equal(sha(readFileSync(prog)), sha(readFileSync('/bin/sleep')), 'nothing was written');
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r)));
    }
    // Without write permission (not for root, who may write anything): EACCES.
    if (process.getuid?.() !== 0) {
      const ro = join(dir, 'ro.txt');
      writeFileSync(ro, 'read-only\n');
      linkSync(ro, join(dir, 'ro-link.txt'));
      chmodSync(ro, 0o444);
      const p = { root: realpathSync(dir), rel: 'ro.txt', real: realpathSync(ro), abs: ro } as unknown as ResolvedPath;
      assert.throws(() => writesInPlace(readBefore(p), p), (e: unknown) => e instanceof HoldfastError && e.code === 'HARD_LINKED' && /is not writable/.test(e.message));
    }
    // One link: no in-place write, no check.
    const single = join(dir, 'single.txt');
    writeFileSync(single, 'x\n');
    const sp = { root: realpathSync(dir), rel: 'single.txt', real: realpathSync(single), abs: single } as unknown as ResolvedPath;
    assert.equal(writesInPlace(readBefore(sp), sp), false);
  });
});
