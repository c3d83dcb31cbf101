import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findOnPath } from '../files/trash.js';

/** What a probe found out about one mechanism on this host. */
export interface ProbeResult {
  ok: boolean;
  /** Absolute path of the program probed (null when not found). */
  program: string | null;
  /** One line: why it works or not (shown by `holdfast doctor` and in refusals). */
  detail: string;
  /** Landlock ABI version (Landlock only). */
  abi?: number;
}

/** How long a probe's verdict is trusted, ms (installing bwrap later is picked up). */
export const SANDBOX_PROBE_TTL_MS = 60_000;
/** A probe that has not answered by then failed, ms. */
const PROBE_TIMEOUT_MS = 5000;
/** First Landlock ABI that can deny TCP connect/bind (Linux 6.7). */
export const LANDLOCK_NET_MIN_ABI = 4;

/** The Landlock helper built by `npm ci` (guardian/build-native.mjs). */
export function defaultLandlockHelper(): string {
  return fileURLToPath(import.meta.resolve('@holdfast/guardian/landlock-helper'));
}

/** Runs a probe: its exit code (null when it could not start or timed out), stdout and stderr. */
function run(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve({ code: 0, stdout, stderr });
      const code = typeof err.code === 'number' ? err.code : null;
      resolve({ code, stdout, stderr: stderr || err.message });
    });
  });
}

function locate(program: string): string | null {
  if (isAbsolute(program)) return existsSync(program) ? program : null;
  return findOnPath(program);
}

/**
 * Probes of the two sandbox mechanisms (issue 17, docs/sandbox.md), cached for
 * {@link SANDBOX_PROBE_TTL_MS}: bwrap runs `/bin/sh -c 'exit 0'` with the namespaces a session
 * would get (a host that blocks user namespaces fails here); the Landlock helper reports the
 * kernel's ABI (`--probe`).
 */
export class SandboxProbe {
  private readonly cache = new Map<string, { at: number; result: Promise<ProbeResult> }>();

  private cached(key: string, fn: () => Promise<ProbeResult>): Promise<ProbeResult> {
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < SANDBOX_PROBE_TTL_MS) return hit.result;
    const result = fn();
    this.cache.set(key, { at: Date.now(), result });
    return result;
  }

  /** Can bwrap (`program`: a name on PATH or an absolute path) confine a shell here? */
  bwrap(program: string, network: 'on' | 'off'): Promise<ProbeResult> {
    return this.cached(`bwrap\0${program}\0${network}`, async () => {
      const path = locate(program);
      if (path === null) return { ok: false, program: null, detail: `bwrap not found (${program}); install bubblewrap` };
      const args = ['--die-with-parent', '--unshare-pid', ...(network === 'off' ? ['--unshare-net'] : []), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', '/bin/sh', '-c', 'exit 0'];
      const r = await run(path, args);
      if (r.code === 0) return { ok: true, program: path, detail: `${path} works (user, mount, pid${network === 'off' ? ', network' : ''} namespaces)` };
      const why = r.stderr.trim().split('\n')[0] || `exit code ${r.code}`;
      return { ok: false, program: path, detail: `${path} cannot create namespaces here: ${why}` };
    });
  }

  /** Can the Landlock helper (`program`, absolute) confine a shell here, with this network setting? */
  landlock(program: string, network: 'on' | 'off'): Promise<ProbeResult> {
    return this.cached(`landlock\0${program}\0${network}`, async () => {
      const path = locate(program);
      if (path === null) return { ok: false, program: null, detail: `the Landlock helper ${program} is missing (built by npm ci with cc)` };
      const r = await run(path, ['--probe']);
      const abi = Number(r.stdout.trim());
      if (r.code !== 0 || !Number.isInteger(abi) || abi < 1) {
        return { ok: false, program: path, detail: `Landlock is not available: ${r.stderr.trim().split('\n')[0] || `exit code ${r.code}`}` };
      }
      if (network === 'off' && abi < LANDLOCK_NET_MIN_ABI) {
        return { ok: false, program: path, abi, detail: `Landlock ABI ${abi} cannot deny TCP (needs ${LANDLOCK_NET_MIN_ABI}, Linux 6.7): network off cannot be enforced` };
      }
      return { ok: true, program: path, abi, detail: `Landlock ABI ${abi}` };
    });
  }

  /** Forgets every verdict (tests, `doctor`). */
  clear(): void {
    this.cache.clear();
  }
}
