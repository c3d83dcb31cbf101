import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Language, Parser } from 'web-tree-sitter';
import { REPO_ROOT, TestHome } from '@holdfast/test/harness';
import { toolCaller } from '@holdfast/test/harness/tools';
import { fmtMs, median, ratio, report, sample } from '../stats.js';

const S = 'codemap';
const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** A 1 000-line TypeScript file: interfaces, classes with methods, functions and arrow functions. */
function thousandLines(): string {
  const out: string[] = [];
  for (let i = 0; out.length < 1000; i++) {
    out.push(
      `export interface Shape${i} {`, `  area(): number;`, `  name: string;`, `}`, ``,
      `export class Box${i} implements Shape${i} {`, `  name = 'box${i}';`, `  constructor(private w: number, private h: number) {}`,
      `  area(): number {`, `    return this.w * this.h;`, `  }`, `  scale = (k: number): Box${i} => new Box${i}(this.w * k, this.h * k);`, `}`, ``,
      `export function total${i}(xs: Shape${i}[]): number {`, `  return xs.reduce((s, x) => s + x.area(), 0);`, `}`, ``,
      `export const make${i} = (w: number): Box${i} => new Box${i}(w, w);`, ``,
    );
  }
  return `${out.slice(0, 1000).join('\n')}\n`;
}

function hasCtags(): boolean {
  try {
    return /Universal Ctags/.test(execFileSync('ctags', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return false;
  }
}

/** Raw web-tree-sitter parse (no query, no ranking) of `files`, ms: the floor of any tree-sitter map. */
async function rawParser(): Promise<(files: readonly string[]) => number> {
  await Parser.init();
  const ts = dirname(require.resolve('tree-sitter-typescript/package.json'));
  const js = dirname(require.resolve('tree-sitter-javascript/package.json'));
  const langs = {
    ts: await Language.load(join(ts, 'tree-sitter-typescript.wasm')),
    tsx: await Language.load(join(ts, 'tree-sitter-tsx.wasm')),
    js: await Language.load(join(js, 'tree-sitter-javascript.wasm')),
  };
  const parser = new Parser();
  return (files) => {
    const t0 = performance.now();
    for (const f of files) {
      const ext = f.slice(f.lastIndexOf('.') + 1);
      parser.setLanguage(ext === 'tsx' ? langs.tsx : ext.endsWith('ts') ? langs.ts : langs.js);
      parser.parse(readFileSync(f, 'utf8'))?.delete();
    }
    return performance.now() - t0;
  };
}

/**
 * Issue 17 measures: `read(view="outline")` of a 1 000-line TypeScript file (parsed each time: its
 * mtime changes) and the ranked map of this repository (cold: first call of a fresh daemon; warm:
 * parsed files cached), against a tags-style baseline on the same files in the same run —
 * Universal Ctags when installed, and always the raw tree-sitter parse time.
 */
export async function codemapSuite(): Promise<void> {
  const h = new TestHome();
  try {
    const file = join(h.workspace, 'thousand.ts');
    writeFileSync(file, thousandLines());
    await h.startDaemon();
    const reg = await h.cli(['workspace', 'register', REPO_ROOT, '--name', 'repo']);
    if (reg.code !== 0) throw new Error(reg.stderr);
    const call = toolCaller(h.client(), 'bench', ['session', 'read']);
    const ws = (await call('session', { action: 'open', workspace: 'ws' })).env.data.remote_session_id as string;
    const repo = (await call('session', { action: 'open', workspace: 'repo' })).env.data.remote_session_id as string;
    const ctags = hasCtags();
    const parse = await rawParser();

    // The repository map first, while the worker has parsed nothing (cold).
    const t0 = performance.now();
    const first = await call('read', { remote_session_id: repo, view: 'outline' });
    const coldMs = performance.now() - t0;
    if (first.env.status !== 'succeeded') throw new Error(first.text);
    const warm = await sample(10, () => call('read', { remote_session_id: repo, view: 'outline' }), 1);
    const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(m?ts|tsx|[cm]?js|jsx)$/.test(f))
      .map((f) => join(REPO_ROOT, f));
    const rawRepo = [parse(files), parse(files), parse(files)];
    const note = `${first.env.data.total_files} files`;
    if (ctags) {
      const list = join(h.home, 'files.txt');
      writeFileSync(list, files.join('\n'));
      const ct = await sample(3, () => run('ctags', ['-f', '/dev/null', '-L', list]), 1);
      report({ suite: S, measure: 'map of this repository, cold', value: fmtMs(coldMs), baseline: `ctags -L (same files) ${fmtMs(median(ct))}`, ratio: ratio(coldMs, median(ct)), note });
      report({ suite: S, measure: 'map of this repository, warm (cached)', value: `p50 ${fmtMs(median(warm))}`, baseline: `ctags -L ${fmtMs(median(ct))}`, ratio: ratio(median(warm), median(ct)) });
    }
    report({ suite: S, measure: 'map of this repository, cold', value: fmtMs(coldMs), baseline: `raw tree-sitter parse ${fmtMs(median(rawRepo))}`, ratio: ratio(coldMs, median(rawRepo)), note: `${files.length} TS/JS files parsed raw` });

    let bump = Date.now() / 1000;
    const outline = await sample(50, async () => {
      bump += 1;
      utimesSync(file, bump, bump); // a new mtime: the worker parses again
      const r = await call('read', { remote_session_id: ws, view: 'outline', path: 'thousand.ts' });
      if (r.env.status !== 'succeeded') throw new Error(r.text);
    });
    const raw = await sample(50, async () => parse([file]));
    if (ctags) {
      const ct = await sample(50, () => run('ctags', ['-f', '-', '--fields=+ne', file]));
      report({ suite: S, measure: 'outline of a 1 000-line TS file', value: `p50 ${fmtMs(median(outline))}`, baseline: `ctags -f - ${fmtMs(median(ct))}`, ratio: ratio(median(outline), median(ct)) });
    }
    report({ suite: S, measure: 'outline of a 1 000-line TS file', value: `p50 ${fmtMs(median(outline))}`, baseline: `raw tree-sitter parse ${fmtMs(median(raw))}`, ratio: ratio(median(outline), median(raw)) });
  } finally {
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
