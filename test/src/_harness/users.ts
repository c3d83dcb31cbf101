import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * Throwaway local users for the "another user on this machine" scenarios (issue 18). CI runs as
 * root (`.ci/run`), so a test can `useradd` a user with a name unique to this run, run processes
 * as it with `setpriv` (which keeps the environment, so the test run's leak marker is inherited),
 * and `userdel` it afterwards. Off root the scenarios are skipped.
 */
export interface TestUser {
  name: string;
  uid: number;
  gid: number;
}

/** True when this process runs as root and every one of `commands` is on PATH. */
export function rootWith(commands: readonly string[]): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('sh', ['-c', commands.map((c) => `command -v ${c}`).join(' && ')], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** True when this process may create users (root with `useradd` and `setpriv`). */
export function canCreateUsers(): boolean {
  return rootWith(['useradd', 'userdel', 'setpriv']);
}

/** Creates a user `<prefix><random>` without a home folder or login shell. */
export function createUser(prefix: string): TestUser {
  const name = `${prefix}${randomBytes(5).toString('hex')}`;
  execFileSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', name], { stdio: 'pipe' });
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { name, uid, gid };
}

/** Removes a user made by {@link createUser} (and its group); never throws. */
export function removeUser(u: TestUser | undefined): void {
  if (!u) return;
  try {
    execFileSync('userdel', [u.name], { stdio: 'ignore' });
  } catch {
    // already gone, or a process of it still runs (the test kills its processes first)
  }
}

/** `setpriv` arguments that run a command as `u` with its own uid, gid and no extra groups. */
function asUserArgs(u: TestUser, cmd: string, args: readonly string[]): string[] {
  return ['--reuid', String(u.uid), '--regid', String(u.gid), '--clear-groups', '--', cmd, ...args];
}

/** Spawns `cmd args` as `u` (environment kept unless `opts.env` says otherwise). */
export function spawnAs(u: TestUser, cmd: string, args: readonly string[], opts: SpawnOptions = {}): ChildProcess {
  return spawn('setpriv', asUserArgs(u, cmd, args), opts);
}

/** Runs `cmd args` as `u` to completion; returns its exit code, stdout and stderr. */
export function runAs(u: TestUser, cmd: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawnAs(u, cmd, args, { env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}
