import { statSync } from 'node:fs';
import { join } from 'node:path';
import { FileLimits } from '@holdfast/shared/constants';
import { findOnPath } from '../trash.js';
import { BuiltinEngine } from './builtin-engine.js';
import { RipgrepEngine } from './rg-engine.js';
import type { FilesOutcome, FilesSpec, SearchOutcome, SearchSpec } from './types.js';

/** Which engine runs searches: ripgrep when on PATH (`auto`), or one forced (tests, benches). */
export type EngineChoice = 'auto' | 'ripgrep' | 'builtin';

/** How long a PATH lookup for `rg` is trusted, ms (installing ripgrep later is picked up). */
const RG_LOOKUP_TTL_MS = 60_000;

/**
 * Runs `read(view="search")` and `read(view="list", mode="files")` on the right engine (issue 4):
 * ripgrep when it is on PATH — one subprocess per search, the only one on a hot path — else the
 * built-in worker. A single-file scope, or anchored ignore rules above the scope that ripgrep would
 * mis-anchor, use the built-in engine. Results are in path order either way.
 */
export class SearchService {
  private readonly builtin = new BuiltinEngine();
  private rg: RipgrepEngine | null = null;
  private rgCheckedAt = 0;

  constructor(private readonly choice: EngineChoice = 'auto') {}

  private ripgrep(): RipgrepEngine | null {
    if (this.choice === 'builtin') return null;
    const now = Date.now();
    if (now - this.rgCheckedAt > RG_LOOKUP_TTL_MS) {
      this.rgCheckedAt = now;
      const bin = findOnPath('rg');
      this.rg = bin ? new RipgrepEngine(bin) : null;
    }
    return this.rg;
  }

  /** The engine a search would use (for `runtime_read` and docs). */
  engineName(): 'ripgrep' | 'builtin' {
    return this.ripgrep() ? 'ripgrep' : 'builtin';
  }

  private scopeIsFile(root: string, scope: string): boolean {
    if (scope === '') return false;
    try {
      return statSync(join(root, scope)).isFile();
    } catch {
      return false;
    }
  }

  /** Every match in path order up to FileLimits.SEARCH_COLLECT_MAX, else the first `spec.want`. */
  async search(spec: SearchSpec, signal?: AbortSignal): Promise<SearchOutcome> {
    const rg = this.scopeIsFile(spec.root, spec.scope) ? null : this.ripgrep();
    if (rg) {
      const r = await rg.search(spec, FileLimits.SEARCH_MAX_FILE_BYTES, FileLimits.SEARCH_COLLECT_MAX, signal);
      if (r) {
        // ripgrep opens by path: its matches are checked against the files read without
        // following symlinks (a folder swapped for one during its walk led it outside).
        const paths = [...new Set(r.matches.map((m) => m.path))];
        // The lines shown are the ones read safely (same path order, same format as ripgrep's).
        const again = await this.builtin.verify(spec, paths);
        return { ...r, matches: again.matches };
      }
    }
    return this.builtin.search(spec, FileLimits.SEARCH_MAX_FILE_BYTES, FileLimits.SEARCH_COLLECT_MAX);
  }

  /** Files in path order, up to FileLimits.LIST_COLLECT_MAX. */
  async files(spec: FilesSpec, signal?: AbortSignal): Promise<FilesOutcome> {
    const rg = this.scopeIsFile(spec.root, spec.scope) ? null : this.ripgrep();
    if (rg) {
      const r = await rg.files(spec, FileLimits.LIST_COLLECT_MAX, signal);
      if (r) return r;
    }
    return this.builtin.files(spec, FileLimits.LIST_COLLECT_MAX);
  }

  /** Stops the built-in engine's worker. */
  close(): Promise<void> {
    return this.builtin.close();
  }
}
