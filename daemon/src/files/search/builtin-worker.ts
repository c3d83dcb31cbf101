import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { serveWorkerRequests } from '../worker-client.js';
import { lineTester, matchText, searchableText } from './line-matcher.js';
import type { FilesOutcome, FilesSpec, SearchMatch, SearchOutcome, SearchSpec } from './types.js';
import { walkFiles } from './walker.js';

/** Messages the engine sends to this worker. */
export type WorkerRequest =
  | { id: number; kind: 'search'; spec: SearchSpec; maxFileBytes: number; collectMax: number }
  | { id: number; kind: 'files'; spec: FilesSpec; collectMax: number };


function search(spec: SearchSpec, maxFileBytes: number, collectMax: number): SearchOutcome {
  const test = lineTester(spec.query, spec.regex, spec.caseSensitive);
  const deny = spec.deny.map((d) => new RegExp(d));
  const matches: SearchMatch[] = [];
  // Path order: everything up to collectMax, else stop once `want` matches are known.
  const stopAt = (n: number): boolean => n > collectMax && n >= spec.want;
  for (const rel of walkFiles({ root: spec.root, scope: spec.scope, include: spec.include, exclude: spec.exclude, deny, maxFileBytes })) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(spec.root, rel));
    } catch {
      continue;
    }
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

if (parentPort) serveWorkerRequests<WorkerRequest, SearchOutcome | FilesOutcome>(parentPort, (req) => (req.kind === 'search' ? search(req.spec, req.maxFileBytes, req.collectMax) : files(req.spec, req.collectMax)));
