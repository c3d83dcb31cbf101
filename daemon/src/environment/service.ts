import { createHash } from 'node:crypto';
import { EnvironmentLimits } from '@holdfast/shared/constants';
import type { ConfigStore } from '../config-store.js';
import type { SessionManager } from '../sessions/manager.js';
import type { EnvironmentSnapshotsRepo } from '../store/environment-snapshots-repo.js';
import type { SessionRow } from '../store/sessions-repo.js';
import { processEnvironment, processProgram, takeReading, type EnvironmentReading, type ReadingSource } from './reading.js';

/** A reading and whether it came from the cache. */
export interface ReadingResult {
  reading: EnvironmentReading;
  cached: boolean;
}

/**
 * Environment readings of sessions (issue 12, docs/environment.md): the environment is the one the
 * session's shell was started with (`/proc/<shell pid>/environ`; the guardian's, then the daemon's,
 * when the shell cannot be read), measured in the session's workspace. Readings with the same
 * PATH, workspace, shell and variable names are shared for {@link EnvironmentLimits.CACHE_MS}
 * (one reading at a time per key; `fresh` takes a new one).
 */
export class EnvironmentService {
  private readonly cache = new Map<string, { at: number; reading: Promise<EnvironmentReading> }>();

  constructor(
    readonly snapshots: EnvironmentSnapshotsRepo,
    private readonly config: ConfigStore,
    private readonly sessions: SessionManager,
  ) {}

  /** Where a session's reading comes from. */
  async source(session: SessionRow): Promise<ReadingSource> {
    let shellPid: number | null = null;
    if (session.state === 'running') {
      try {
        const st = await this.sessions.status(session.id, 5000);
        if (st.shell.alive) shellPid = st.shell.pid;
      } catch {
        shellPid = null;
      }
    }
    const own: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) own[k] = v;
    const env = (shellPid !== null ? processEnvironment(shellPid) : null) ?? (session.guardian_pid !== null ? processEnvironment(session.guardian_pid) : null) ?? own;
    return {
      env,
      shellPath: shellPid !== null ? processProgram(shellPid) : null,
      workspaceRoot: session.workspace_root,
      workspaceRoots: this.config.listWorkspaces().map((w) => w.path),
    };
  }

  /** A reading of the session's environment: cached unless `fresh`. */
  async read(session: SessionRow, fresh: boolean): Promise<ReadingResult> {
    const src = await this.source(session);
    const key = createHash('sha256')
      .update(JSON.stringify([src.env.PATH ?? '', src.workspaceRoot, src.shellPath, Object.keys(src.env).sort(), ['LANG', 'LC_ALL', 'SHELL'].map((k) => src.env[k] ?? null)]))
      .digest('hex');
    const now = Date.now();
    for (const [k, v] of this.cache) if (now - v.at >= EnvironmentLimits.CACHE_MS) this.cache.delete(k);
    const hit = this.cache.get(key);
    if (!fresh && hit) return { reading: await hit.reading, cached: true };
    const reading = takeReading(src);
    this.cache.set(key, { at: now, reading });
    reading.catch(() => this.cache.delete(key));
    return { reading: await reading, cached: false };
  }
}
