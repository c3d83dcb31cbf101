import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { rootWith } from './users.js';

/**
 * Small private filesystems for tests that need "another filesystem" or "a full disk" (issue 18):
 * a tmpfs of a few MiB mounted on a folder of the test (root only; CI runs as root), unmounted in
 * cleanup. Nothing on the machine's real disks is filled.
 */

/** True when this process may mount (root with `mount`). */
export function canMount(): boolean {
  return rootWith(['mount', 'umount']);
}

/** Mounts a tmpfs of `sizeMiB` on `dir` (created when missing), mode 0755. */
export function mountTmpfs(dir: string, sizeMiB: number): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
}

/** Unmounts `dir` (lazily, so a process still holding a file there cannot block cleanup); never throws. */
export function unmount(dir: string): void {
  try {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  } catch {
    // not mounted
  }
}
