import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildString } from '@holdfast/shared/build';
import { HoldfastError } from '@holdfast/shared/errors';
import { guardianPaths, type HomeLayout } from '@holdfast/shared/paths';
import { LinkTimeouts, writeJsonAtomic, type GuardianSpec, type SandboxSpec } from '@holdfast/shared/protocol';
import { GuardianLink, type LinkEvents } from './link.js';
import { HOLDFAST_INSTALL_ROOT, sessionBaseEnv } from './session-env.js';

/** Absolute path of the guardian bundle (resolved, never imported: DESIGN §1). */
export function guardianBundlePath(): string {
  return fileURLToPath(import.meta.resolve('@holdfast/guardian/bundle'));
}

export interface LaunchRequest {
  gid: string;
  cwd: string;
  cols: number;
  rows: number;
  orphanTimeoutS: number;
  shell?: string;
  env?: Record<string, string>;
  /** How long the user's rc files may take to reach a first prompt, ms (issue 9). */
  rcTimeoutMs?: number;
  /** Confinement of the shell and tasks (issue 17). */
  sandbox?: SandboxSpec;
}

export interface Launched {
  link: GuardianLink;
  pid: number;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a guardian (DESIGN §4.5): writes its spec (0600), spawns it detached — its own session
 * and process group, stdio to `sessions/<gid>/guardian.log`, no pipes, no IPC channel — and dials
 * its socket until the hello succeeds or the deadline passes.
 * @throws HoldfastError `SPAWN_FAILED` with the tail of the guardian log.
 */
export async function launchGuardian(layout: HomeLayout, req: LaunchRequest, events: LinkEvents): Promise<Launched> {
  const paths = guardianPaths(layout, req.gid);
  mkdirSync(paths.sessionDir, { recursive: true, mode: 0o700 });
  mkdirSync(layout.guardianDir, { recursive: true, mode: 0o700 });
  const spec: GuardianSpec = {
    schema: 1,
    gid: req.gid,
    cwd: req.cwd,
    env: { HOLDFAST_SESSION: req.gid, ...(req.env ?? {}) },
    cols: req.cols,
    rows: req.rows,
    socketPath: paths.socket,
    manifestPath: paths.manifest,
    sessionDir: paths.sessionDir,
    orphanTimeoutS: req.orphanTimeoutS,
    daemonBuild: buildString(),
  };
  if (req.shell) spec.shell = req.shell;
  if (req.rcTimeoutMs !== undefined) spec.rcTimeoutMs = req.rcTimeoutMs;
  if (req.sandbox) spec.sandbox = req.sandbox;
  writeJsonAtomic(paths.spec, spec);

  const logFd = openSync(paths.guardianLog, 'a', 0o600);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let pid: number;
  try {
    const child = spawn(process.execPath, [guardianBundlePath(), '--spec', paths.spec], {
      cwd: req.cwd,
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: sessionBaseEnv(process.env, HOLDFAST_INSTALL_ROOT, req.gid),
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal };
    });
    child.on('error', () => {
      exited ??= { code: null, signal: null };
    });
    child.unref();
    if (child.pid === undefined) throw new HoldfastError('SPAWN_FAILED', 'could not start the guardian process');
    pid = child.pid;
  } finally {
    closeSync(logFd);
  }

  const deadline = Date.now() + LinkTimeouts.GUARDIAN_SPAWN_READY_MS;
  let wait = 5;
  for (;;) {
    if (exited) {
      const e = exited as { code: number | null; signal: NodeJS.Signals | null };
      throw new HoldfastError('SPAWN_FAILED', `guardian exited at start (code ${e.code}, signal ${e.signal}): ${logTail(paths.guardianLog)}`);
    }
    try {
      const link = await GuardianLink.connect(req.gid, paths.socket, 2000, events);
      return { link, pid };
    } catch (err) {
      if (err instanceof HoldfastError && (err.code === 'PROTOCOL_VERSION' || err.details?.unsafe_run_dir !== undefined)) throw err;
      if (Date.now() > deadline) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
        throw new HoldfastError('SPAWN_FAILED', `guardian did not answer within ${LinkTimeouts.GUARDIAN_SPAWN_READY_MS} ms: ${logTail(paths.guardianLog)}`);
      }
      await delay(wait);
      wait = Math.min(wait * 2, 50);
    }
  }
}

function logTail(path: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(-600).trim() || '(empty log)';
  } catch {
    return '(no log)';
  }
}
