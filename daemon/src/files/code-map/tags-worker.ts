import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFileBeneath } from '../beneath.js';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { CodeMapLimits } from '@holdfast/shared/constants';
import { searchableText } from '../search/line-matcher.js';
import { walkFiles } from '../search/walker.js';
import { serveWorkerRequests } from '../worker-client.js';
import { languageOf } from './languages.js';
import { pickSymbols, rankFiles } from './rank.js';
import { plainSymbol, Tagger, type FileTags } from './tagger.js';
import type { LanguageId, MapResult, NameHit, OutlineResult, RankedFile, ReferencesResult, SkipCounts, WalkScope } from './types.js';

/** Messages the code-map service sends to this worker (issue 17). */
export type CodeMapRequest =
  | { id: number; kind: 'outline'; root: string; path: string }
  | { id: number; kind: 'map'; walk: WalkScope }
  | { id: number; kind: 'references'; walk: WalkScope; name: string };

export type CodeMapAnswer = OutlineResult | MapResult | ReferencesResult;

const tagger = new Tagger();
/** Parsed tags by `path\0size\0mtime` (most recently used last). */
const cache = new Map<string, FileTags>();

async function tagsOf(lang: LanguageId, key: string, text: string): Promise<FileTags> {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const tags = await tagger.tags(lang, text);
  cache.set(key, tags);
  while (cache.size > CodeMapLimits.PARSE_CACHE_FILES) cache.delete(cache.keys().next().value!);
  return tags;
}

/** A source file that passed the size and binary checks. */
interface Source {
  path: string;
  lang: LanguageId;
  key: string;
  text: string;
}

/** Reads one file for parsing, or says why not. */
function readSource(root: string, path: string): { source: Source; size: number } | { skipped: 'too_large' | 'binary' | 'unsupported' | 'unreadable'; size: number; key: string | null } {
  const lang = languageOf(path);
  let st;
  try {
    st = statSync(join(root, path));
  } catch {
    return { skipped: 'unreadable', size: 0, key: null };
  }
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  if (!lang) return { skipped: 'unsupported', size: st.size, key };
  if (st.size > CodeMapLimits.MAX_FILE_BYTES) return { skipped: 'too_large', size: st.size, key };
  let text: string | null;
  try {
    const bytes = readFileBeneath(root, join(root, path));
    if (bytes === null) return { skipped: 'unreadable', size: st.size, key };
    text = searchableText(bytes);
  } catch {
    return { skipped: 'unreadable', size: st.size, key };
  }
  if (text === null) return { skipped: 'binary', size: st.size, key };
  return { source: { path, lang, key, text }, size: st.size };
}

/**
 * Walks the scope with the search walker (`.gitignore`, deny rules, globs; symlinks not followed)
 * and hands every readable source file to `each`. Returns the counts and the snapshot hash over
 * path, size and mtime of every source file considered.
 */
async function walkSources(walk: WalkScope, each: (s: Source) => Promise<void>, wants: (text: string) => boolean = () => true): Promise<{ scanned: number; complete: boolean; skipped: SkipCounts; snapshot: string }> {
  const deny = walk.deny.map((d) => new RegExp(d));
  const skipped: SkipCounts = { too_large: 0, too_large_examples: [], binary: 0, unsupported: 0, unreadable: 0 };
  const hash = createHash('sha256');
  let scanned = 0;
  let complete = true;
  for (const rel of walkFiles({ root: walk.root, scope: walk.scope, include: walk.include, exclude: walk.exclude, deny, maxFileBytes: Number.POSITIVE_INFINITY })) {
    if (scanned >= CodeMapLimits.SCAN_FILES_MAX) {
      complete = false;
      break;
    }
    scanned++;
    if (languageOf(rel) === null) {
      skipped.unsupported++;
      continue;
    }
    const r = readSource(walk.root, rel);
    if ('skipped' in r) {
      if (r.key) hash.update(`${r.key}\n`);
      skipped[r.skipped]++;
      if (r.skipped === 'too_large' && skipped.too_large_examples.length < 5) skipped.too_large_examples.push(rel);
      continue;
    }
    hash.update(`${r.source.key}\n`);
    if (wants(r.source.text)) await each(r.source);
  }
  return { scanned, complete, skipped, snapshot: hash.digest('hex').slice(0, 16) };
}

const snapshotOf = (key: string | null): string => createHash('sha256').update(key ?? '').digest('hex').slice(0, 16);

async function outline(root: string, path: string): Promise<OutlineResult> {
  const r = readSource(root, path);
  const lang = languageOf(path);
  if ('skipped' in r) return { path, language: lang, skipped: r.skipped, size: r.size, total_lines: 0, symbols: [], total_symbols: 0, snapshot: snapshotOf(r.key) };
  const tags = await tagsOf(r.source.lang, r.source.key, r.source.text);
  const symbols = tags.defs.slice(0, CodeMapLimits.OUTLINE_SYMBOLS_MAX).map(plainSymbol);
  return { path, language: r.source.lang, size: r.size, total_lines: r.source.text.split('\n').length, symbols, total_symbols: tags.defs.length, snapshot: snapshotOf(r.source.key) };
}

async function map(walk: WalkScope): Promise<MapResult> {
  const parsed: { path: string; lang: LanguageId; tags: FileTags }[] = [];
  const w = await walkSources(walk, async (s) => {
    parsed.push({ path: s.path, lang: s.lang, tags: await tagsOf(s.lang, s.key, s.text) });
  });
  const { ranks, usedBy } = rankFiles(parsed.map((p) => ({ path: p.path, defs: p.tags.defs, refs: p.tags.refs })));
  const files: RankedFile[] = parsed.map((p, i) => ({
    path: p.path,
    language: p.lang,
    rank: ranks[i]!,
    symbols: pickSymbols(p.tags.defs, usedBy[i]!, CodeMapLimits.MAP_SYMBOLS_PER_FILE).map(plainSymbol),
    total_symbols: p.tags.defs.length,
  }));
  files.sort((a, b) => b.rank - a.rank || (a.path < b.path ? -1 : 1));
  return { files, ...w };
}

async function references(walk: WalkScope, name: string): Promise<ReferencesResult> {
  if (!/^[\p{L}\p{N}_$]+$/u.test(name)) throw new Error(`references takes one identifier (letters, digits, _ or $), not ${JSON.stringify(name)}`);
  const definitions: NameHit[] = [];
  const uses: NameHit[] = [];
  let filesParsed = 0;
  const w = await walkSources(
    walk,
    async (s) => {
      filesParsed++;
      const r = await tagger.occurrences(s.lang, s.text, s.path, name);
      definitions.push(...r.definitions);
      uses.push(...r.uses);
    },
    (text) => text.includes(name),
  );
  return { name, definitions, uses, files_parsed: filesParsed, ...w };
}

if (parentPort) {
  serveWorkerRequests<CodeMapRequest, CodeMapAnswer>(parentPort, (req) => {
    switch (req.kind) {
      case 'outline':
        return outline(req.root, req.path);
      case 'map':
        return map(req.walk);
      case 'references':
        return references(req.walk, req.name);
    }
  });
}
