import { join } from 'node:path';
import { readFileBeneath } from '../beneath.js';
import { parentPort } from 'node:worker_threads';
import { serveWorkerRequests } from '../worker-client.js';
import { lineTester, matchText, searchableText } from './line-matcher.js';
import type { FilesOutcome, FilesSpec, SearchMatch, SearchOutcome, SearchSpec } from './types.js';
import { walkFiles } from './walker.js';

/** Messages the engine sends to this worker. */
export type WorkerRequest =
  | { id: number; kind: 'search'; spec: SearchSpec; maxFileBytes: number; collectMax: number }
  | { id: number; kind: 'files'; spec: FilesSpec; collectMax: number }
  | { id: number; kind: 'verify'; spec: SearchSpec; paths: string[] };

/** `rel`'s bytes read from the root without following a symlink at any step, or null. */
function readSafely(root: string, rel: string): Buffer | null {
  try {
    return readFileBeneath(root, join(root, rel));
  } catch {
    return null;
  }
}

/**
 * The matches of `paths` (files ripgrep reported) found again in the files read safely
 * (docs/security.md): ripgrep opens by path, so a folder swapped for a symlink during its walk
 * could have led it outside; what it read there is dropped, only what the workspace file holds is
 * kept.
 */
function verify(spec: SearchSpec, paths: string[]): SearchOutcome {
  const test = lineTester(spec.query, spec.regex, spec.caseSensitive);
  const matches: SearchMatch[] = [];
  for (const rel of paths) {
    const bytes = readSafely(spec.root, rel);
    const text = bytes === null ? null : searchableText(bytes);
    if (text !== null) matches.push(...matchText(rel, text, test, spec.contextLines));
  }
  return { matches, complete: true, engine: 'ripgrep' };
}


function search(spec: SearchSpec, maxFileBytes: number, collectMax: number): SearchOutcome {
  const test = lineTester(spec.query, spec.regex, spec.caseSensitive);
  const deny = spec.deny.map((d) => new RegExp(d));
  const matches: SearchMatch[] = [];
  // Path order: everything up to collectMax, else stop once `want` matches are known.
  const stopAt = (n: number): boolean => n > collectMax && n >= spec.want;
  for (const rel of walkFiles({ root: spec.root, scope: spec.scope, include: spec.include, exclude: spec.exclude, deny, maxFileBytes })) {
    const bytes = readSafely(spec.root, rel);
    if (bytes === null) continue;
    const text = searchableText(bytes);
    if (text === null) continue;
    for (const m of matchText(rel, text, test, spec.contextLines)) {
      matches.push(m);
      if (stopAt(matches.length)) return { matches, complete: false, engine: 'builtin' };
    }
  }
  return { matches, complete: true, engine: 'builtin' };
}

function files(spec: FilesSpec, collectMax: number): FilesOutcome {
  const deny = spec.deny.map((d) => new RegExp(d));
  const q = spec.query?.toLowerCase() ?? null;
  const out: string[] = [];
  for (const rel of walkFiles({ root: spec.root, scope: spec.scope, include: spec.include, exclude: spec.exclude, deny, maxFileBytes: Number.POSITIVE_INFINITY })) {
    if (q !== null && !rel.toLowerCase().includes(q)) continue;
    out.push(rel);
    if (out.length > collectMax) return { files: out, complete: false, engine: 'builtin' };
  }
  return { files: out, complete: true, engine: 'builtin' };
}

if (parentPort) serveWorkerRequests<WorkerRequest, SearchOutcome | FilesOutcome>(parentPort, (req) => (req.kind === 'search' ? search(req.spec, req.maxFileBytes, req.collectMax) : req.kind === 'verify' ? verify(req.spec, req.paths) : files(req.spec, req.collectMax)));
