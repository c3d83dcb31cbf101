import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { GlobFilter } from './glob-filter.js';
import { IGNORE_FILE_NAMES } from './ignore-rules.js';
import { withContext } from './line-matcher.js';
import { comparePaths } from './path-order.js';
import type { FilesOutcome, FilesSpec, SearchMatch, SearchOutcome, SearchSpec } from './types.js';

/**
 * Flags that pin ripgrep to the built-in engine's rules: no config file, hidden files searched,
 * `.gitignore`/`.ignore`/`.rgignore` respected whether or not this is a git checkout, but no global
 * or `.git/info/exclude` rules and nothing from folders above the search path (those of the
 * workspace above the scope are passed as --ignore-file), `.git` folders skipped.
 */
const BASE_ARGS = ['--no-config', '--hidden', '--no-require-git', '--no-ignore-parent', '--no-ignore-global', '--no-ignore-exclude', '-g', '!.git'];

type JsonText = { text?: string; bytes?: string };

function textOf(v: JsonText | undefined): string {
  if (!v) return '';
  if (v.text !== undefined) return v.text;
  return v.bytes !== undefined ? Buffer.from(v.bytes, 'base64').toString('utf8') : '';
}

function stripEol(s: string): string {
  return s.endsWith('\r\n') ? s.slice(0, -2) : s.endsWith('\n') ? s.slice(0, -1) : s;
}

function stripDot(p: string): string {
  return p.startsWith('./') ? p.slice(2) : p;
}

/** A gitignore line anchored to its folder (has a `/` before its last character). */
function anchoredRule(line: string): boolean {
  const l = line.trim().replace(/^!/, '');
  if (l === '' || l.startsWith('#')) return false;
  const body = l.replace(/\/+$/, '');
  return body.includes('/') && !body.startsWith('**/');
}

/**
 * Ignore files of the folders from the workspace root down to (excluding) the scope, as
 * `--ignore-file` arguments (ripgrep matches their rules from its working directory, the root).
 * @returns null when a folder below the root has anchored rules ripgrep would mis-anchor: the
 *   caller then uses the built-in engine.
 */
function ignoreFilesAbove(root: string, scope: string): string[] | null {
  if (scope === '') return [];
  const parts = scope.split('/');
  const args: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    for (const name of IGNORE_FILE_NAMES) {
      const file = join(root, dir, name);
      if (!existsSync(file)) continue;
      if (dir !== '' && readFileSync(file, 'utf8').split('\n').some(anchoredRule)) return null;
      args.push('--ignore-file', file);
    }
  }
  return args;
}

/** Include globs without a `/` become a ripgrep file type (types narrow without overriding ignore rules). */
function includeTypeArgs(include: readonly string[]): string[] {
  const named = include.filter((g) => !g.replace(/\/+$/, '').includes('/'));
  if (named.length === 0 || named.length !== include.length) return [];
  return [...named.flatMap((g) => ['--type-add', `hfinclude:${g}`]), '-t', 'hfinclude'];
}

/** Exclude globs pass through (`!glob`): they only ever exclude more. */
function excludeArgs(exclude: readonly string[]): string[] {
  return exclude.flatMap((g) => ['-g', `!${g}`]);
}

interface RunResult {
  code: number | null;
  stderr: string;
  killed: boolean;
}

/** Runs rg in `cwd`, feeding stdout to `onChunk`; `onChunk` returning false kills it. */
function runRg(bin: string, args: string[], cwd: string, onChunk: (chunk: Buffer) => boolean, signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let killed = false;
    const kill = (): void => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (c: Buffer) => {
      if (!killed && !onChunk(c)) kill();
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 4096) stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      signal?.removeEventListener('abort', kill);
      resolve({ code, stderr, killed });
    });
  });
}

/** Splits a byte stream into lines (by `sep`) across chunks. */
function lineSplitter(sep: number, onLine: (line: string) => boolean): (chunk: Buffer) => boolean {
  let rest: Buffer = Buffer.alloc(0);
  return (chunk) => {
    let buf = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let i = buf.indexOf(sep);
    while (i !== -1) {
      if (!onLine(buf.toString('utf8', 0, i))) return false;
      buf = buf.subarray(i + 1);
      i = buf.indexOf(sep);
    }
    rest = Buffer.from(buf);
    return true;
  };
}

/**
 * The ripgrep engine (issue 4): `rg --json` with the pinned flags; results sorted in path order.
 * A first run collects up to `collectMax` matches unsorted (ripgrep at full speed); beyond that it
 * runs again with `--sort path` and stops at `spec.want`, so paging stays exact.
 */
export class RipgrepEngine {
  constructor(readonly bin: string) {}

  /**
   * @returns null when this search needs the built-in engine (anchored ignore rules above the scope).
   * @throws HoldfastError BAD_REQUEST for a pattern ripgrep refuses.
   */
  async search(spec: SearchSpec, maxFileBytes: number, collectMax: number, signal?: AbortSignal): Promise<SearchOutcome | null> {
    const above = ignoreFilesAbove(spec.root, spec.scope);
    if (above === null) return null;
    const globs = new GlobFilter(spec.include, spec.exclude);
    const deny = spec.deny.map((d) => new RegExp(d));
    const args = [
      '--json', ...BASE_ARGS, ...above, '--max-filesize', String(maxFileBytes), '--crlf',
      ...(spec.regex ? [] : ['-F']), spec.caseSensitive ? '-s' : '-i', ...(spec.contextLines > 0 ? ['-C', String(spec.contextLines)] : []),
      ...excludeArgs(spec.exclude), ...includeTypeArgs(spec.include),
    ];
    const tail = ['-e', spec.query, '--', spec.scope === '' ? '.' : spec.scope];
    const scopePrefix = spec.scope === '' ? '' : `${spec.scope}/`;
    const keep = (path: string): boolean => !deny.some((re) => re.test(path)) && globs.allowsFile(path === spec.scope ? path.slice(path.lastIndexOf('/') + 1) : path.slice(scopePrefix.length), true);

    const collect = async (sorted: boolean, stopAt: number): Promise<{ matches: SearchMatch[]; overflow: boolean }> => {
      const matches: SearchMatch[] = [];
      let file: { path: string; hits: number[]; known: Map<number, string> } | null = null;
      let overflow = false;
      const onLine = (line: string): boolean => {
        if (line === '') return true;
        const msg = JSON.parse(line) as { type: string; data: { path?: JsonText; lines?: JsonText; line_number?: number } };
        if (msg.type === 'begin') {
          const path = stripDot(textOf(msg.data.path));
          file = keep(path) ? { path, hits: [], known: new Map() } : null;
        } else if ((msg.type === 'match' || msg.type === 'context') && file && msg.data.line_number !== undefined) {
          // a multi-line `lines.text` cannot happen without --multiline; keep the first line
          file.known.set(msg.data.line_number, stripEol(textOf(msg.data.lines)).split('\n')[0]!);
          if (msg.type === 'match') file.hits.push(msg.data.line_number);
        } else if (msg.type === 'end' && file) {
          matches.push(...withContext(file.path, file.hits, file.known, spec.contextLines));
          file = null;
          if (matches.length >= stopAt) {
            overflow = true;
            return false;
          }
        }
        return true;
      };
      const r = await runRg(this.bin, [...args, ...(sorted ? ['--sort', 'path'] : []), ...tail], spec.root, lineSplitter(0x0a, onLine), signal);
      if (!r.killed && r.code === 2 && /regex|parse error|syntax/i.test(r.stderr)) {
        throw new HoldfastError('BAD_REQUEST', `ripgrep refused the pattern: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`);
      }
      if (signal?.aborted) throw new HoldfastError('CANCELLED', 'search cancelled');
      return { matches, overflow };
    };

    const first = await collect(false, collectMax + 1);
    if (!first.overflow) {
      first.matches.sort((a, b) => comparePaths(a.path, b.path) || a.line - b.line);
      return { matches: first.matches, complete: true, engine: 'ripgrep' };
    }
    const again = await collect(true, Math.max(spec.want, 1));
    again.matches.sort((a, b) => comparePaths(a.path, b.path) || a.line - b.line);
    return { matches: again.matches, complete: false, engine: 'ripgrep' };
  }

  /** `rg --files` with the same rules; null when the built-in engine must list instead. */
  async files(spec: FilesSpec, collectMax: number, signal?: AbortSignal): Promise<FilesOutcome | null> {
    const above = ignoreFilesAbove(spec.root, spec.scope);
    if (above === null) return null;
    const globs = new GlobFilter(spec.include, spec.exclude);
    const deny = spec.deny.map((d) => new RegExp(d));
    const q = spec.query?.toLowerCase() ?? null;
    const scopePrefix = spec.scope === '' ? '' : `${spec.scope}/`;
    const files: string[] = [];
    let complete = true;
    const args = ['--files', '--null', ...BASE_ARGS, ...above, ...excludeArgs(spec.exclude), ...includeTypeArgs(spec.include), '--', spec.scope === '' ? '.' : spec.scope];
    await runRg(this.bin, args, spec.root, lineSplitter(0, (raw) => {
      const path = stripDot(raw);
      if (deny.some((re) => re.test(path))) return true;
      if (q !== null && !path.toLowerCase().includes(q)) return true;
      if (!globs.allowsFile(path === spec.scope ? path.slice(path.lastIndexOf('/') + 1) : path.slice(scopePrefix.length), true)) return true;
      files.push(path);
      if (files.length > collectMax) {
        complete = false;
        return false;
      }
      return true;
    }), signal);
    files.sort(comparePaths);
    return { files, complete, engine: 'ripgrep' };
  }
}
