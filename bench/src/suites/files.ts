import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/client';
import { TestHome } from '@holdfast/test/harness';
import { callTool, openSession, stdioClient } from '@holdfast/test/harness/mcp';
import { startDesktopCommander, startServerFilesystem, type Peer } from '../peers.js';
import { ourEdit } from './calls.js';
import { fmtMs, median, ratio, report, sample } from '../stats.js';

const S = 'files';
const run = promisify(execFile);

/** Files of the search tree, and how many of them hold the needle. */
const TREE_FILES = 20_000;
const TREE_FILES_PER_DIR = 200;
const NEEDLE = 'NEEDLE_7f3a';

/** Lays out the fixtures: 1 KB and 1 MB files, 100 × 1 KB files, a 100-line file, a 20 000-file tree. */
function fixtures(ws: string): void {
  const line = 'const value = computeSomething(alpha, beta, gamma); // filler text\n';
  writeFileSync(join(ws, 'one-kb.ts'), line.repeat(Math.ceil(1024 / line.length)).slice(0, 1024));
  mkdirSync(join(ws, 'a', 'b', 'c', 'd', 'e', 'f'), { recursive: true });
  writeFileSync(join(ws, 'a', 'b', 'c', 'd', 'e', 'f', 'one-kb.ts'), line.repeat(Math.ceil(1024 / line.length)).slice(0, 1024));
  writeFileSync(join(ws, 'one-mb.ts'), line.repeat(Math.ceil((1024 * 1024) / line.length)).slice(0, 1024 * 1024));
  mkdirSync(join(ws, 'batch'), { recursive: true });
  for (let i = 0; i < 100; i++) writeFileSync(join(ws, 'batch', `f${i}.ts`), `// file ${i}\n${line.repeat(15)}`.slice(0, 1024));
  writeFileSync(join(ws, 'hundred.ts'), Array.from({ length: 100 }, (_, i) => `export const v${i} = ${i};\r\n`).join(''));
  for (let d = 0; d < TREE_FILES / TREE_FILES_PER_DIR; d++) {
    const dir = join(ws, 'tree', `pkg${d}`, 'src');
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < TREE_FILES_PER_DIR; f++) {
      const hit = (d * TREE_FILES_PER_DIR + f) % 500 === 0 ? `// ${NEEDLE} here\n` : '';
      writeFileSync(join(dir, `m${f}.ts`), `${hit}${line.repeat(20)}`);
    }
  }
}

function text(r: unknown): string {
  const c = (r as { content?: { type: string; text?: string }[] }).content ?? [];
  return c.map((b) => b.text ?? '').join('');
}

/**
 * Issue 4 measures, all over stdio in one run: reading a 1 KB and a 1 MB file, a 100-file batch,
 * a content search and a name search over a 20 000-file tree, and an exact replacement edit —
 * holdfast against `@modelcontextprotocol/server-filesystem`, DesktopCommander and the floor
 * (plain `fs`, raw `rg`).
 */
export async function filesSuite(): Promise<void> {
  // The 1 MB rows read the whole file in one window, as the peers do (the default window is
  // 256 KiB since the read-paging fix; one window of 1 MiB is what the rows compare).
  const h = new TestHome({ limits: { read_window_bytes: 1024 * 1024 } });
  const closers: (() => Promise<unknown>)[] = [];
  try {
    fixtures(h.workspace);
    await h.startDaemon();
    const { client: ours } = await stdioClient(h);
    closers.push(() => ours.close());
    const sf: Peer = await startServerFilesystem(h.workspace);
    closers.push(() => sf.close());
    const dc: Peer = await startDesktopCommander(h.workspace);
    closers.push(() => dc.close());
    const { id } = await openSession(ours, { workspace: 'ws' });
    const abs = (p: string): string => join(h.workspace, p);
    const readOurs = (c: Client, path: string) => async (): Promise<void> => {
      const r = await callTool(c, 'read', { remote_session_id: id, path, force: true });
      if (r.isError) throw new Error(r.text);
    };

    for (const [label, path, n] of [['read 1 KB', 'one-kb.ts', 300], ['read 1 MB', 'one-mb.ts', 60]] as const) {
      const o = median(await sample(n, readOurs(ours, path)));
      const s = median(await sample(n, () => sf.client.callTool({ name: 'read_text_file', arguments: { path: abs(path) } })));
      const d = median(await sample(Math.min(n, 60), () => dc.client.callTool({ name: 'read_file', arguments: { path: abs(path) } })));
      const f = median(await sample(n, () => readFile(abs(path), 'utf8')));
      report({ suite: S, measure: `${label} (stdio)`, value: fmtMs(o), baseline: `server-filesystem ${fmtMs(s)}`, ratio: ratio(o, s), note: `goal ${label.endsWith('KB') ? '≤ 1.0×' : '≤ 0.6×'}; DC ${fmtMs(d)}, fs ${fmtMs(f)}` });
    }

    // Issue 18: file-tool paths are opened without following symlinks at any step; the cost must
    // not grow with the depth of the folder (one open + readlink of the folder, whatever its depth).
    const oTop = median(await sample(300, readOurs(ours, 'one-kb.ts')));
    const oDeep = median(await sample(300, readOurs(ours, 'a/b/c/d/e/f/one-kb.ts')));
    report({ suite: S, measure: 'read 1 KB, 6 folders deep (stdio)', value: fmtMs(oDeep), baseline: `same file at the root ${fmtMs(oTop)}`, ratio: ratio(oDeep, oTop), note: 'no-follow walk (issue 18): goal ≈ 1.0×' });

    const paths = Array.from({ length: 100 }, (_, i) => `batch/f${i}.ts`);
    const oBatch = median(await sample(40, async () => {
      const r = await callTool(ours, 'read', { remote_session_id: id, view: 'context', items: paths.map((path) => ({ path })), max_total_bytes: 1_000_000 });
      if (r.isError) throw new Error(r.text);
    }));
    const sBatch = median(await sample(40, () => sf.client.callTool({ name: 'read_multiple_files', arguments: { paths: paths.map(abs) } })));
    const dBatch = median(await sample(10, () => dc.client.callTool({ name: 'read_multiple_files', arguments: { paths: paths.map(abs) } })));
    const fBatch = median(await sample(40, () => Promise.all(paths.map((p) => readFile(abs(p), 'utf8')))));
    report({ suite: S, measure: '100-file batch (stdio, one call)', value: fmtMs(oBatch), baseline: `server-filesystem ${fmtMs(sBatch)}`, ratio: ratio(oBatch, sBatch), note: `goal ≤ 1.0×; DC ${fmtMs(dBatch)}, fs ${fmtMs(fBatch)}` });

    const oSearch = median(await sample(15, async () => {
      const r = await callTool(ours, 'read', { remote_session_id: id, view: 'search', path: 'tree', query: NEEDLE });
      if (r.isError || (r.env.data as { total: number }).total !== TREE_FILES / 500) throw new Error(r.text);
    }, 3));
    const rgSearch = median(await sample(15, () => run('rg', ['--no-config', '-F', NEEDLE, 'tree'], { cwd: h.workspace }), 3));
    report({ suite: S, measure: `content search, ${TREE_FILES} files (stdio)`, value: fmtMs(oSearch), baseline: `raw rg ${fmtMs(rgSearch)}`, ratio: ratio(oSearch, rgSearch), note: 'goal ≤ 1.3×' });

    const oNames = median(await sample(15, async () => {
      const r = await callTool(ours, 'read', { remote_session_id: id, view: 'list', path: 'tree', query: 'm199.ts', limit: 500 });
      if (r.isError || (r.env.data as { total: number }).total !== TREE_FILES / TREE_FILES_PER_DIR) throw new Error(r.text);
    }, 3));
    const rgNames = median(await sample(15, () => run('rg', ['--no-config', '--files', 'tree'], { cwd: h.workspace, maxBuffer: 64 * 1024 * 1024 }), 3));
    const sNames = median(await sample(3, () => sf.client.callTool({ name: 'search_files', arguments: { path: abs('tree'), pattern: '**/m199.ts' } }), 1));
    report({ suite: S, measure: `name search, ${TREE_FILES} files (stdio)`, value: fmtMs(oNames), baseline: `raw rg --files ${fmtMs(rgNames)}`, ratio: ratio(oNames, rgNames), note: `goal ≤ 1.5×; server-filesystem ${fmtMs(sNames)}` });

    // Exact replacement edit on a 100-line CRLF file, flipping one line back and forth.
    const oEdit = median(await sample(100, ourEdit(ours, id)));
    const flipper = (call: (a: string, b: string) => Promise<unknown>) => {
      let flip = false;
      return async (): Promise<void> => {
        const [a, b] = flip ? ['= 4200;', '= 42;'] : ['= 42;', '= 4200;'];
        flip = !flip;
        await call(a, b);
      };
    };
    writeFileSync(abs('hundred-sf.ts'), readFileSync(abs('hundred.ts')));
    writeFileSync(abs('hundred-dc.ts'), readFileSync(abs('hundred.ts')));
    const sEdit = median(await sample(100, flipper((a, b) => sf.client.callTool({ name: 'edit_file', arguments: { path: abs('hundred-sf.ts'), edits: [{ oldText: a, newText: b }] } }))));
    const dEdit = median(await sample(50, flipper(async (a, b) => {
      const r = await dc.client.callTool({ name: 'edit_block', arguments: { file_path: abs('hundred-dc.ts'), old_string: a, new_string: b, expected_replacements: 1 } });
      if ((r as { isError?: boolean }).isError) throw new Error(text(r));
    })));
    const crlfKept = readFileSync(abs('hundred.ts'), 'latin1').split('\r\n').length - 1;
    report({ suite: S, measure: 'exact edit incl. fsync, 100-line CRLF file', value: fmtMs(oEdit), baseline: `server-filesystem ${fmtMs(sEdit)}`, ratio: ratio(oEdit, sEdit), note: `goal ≤ 2×; DC ${fmtMs(dEdit)}; CRLF lines kept: ${crlfKept}/100` });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
