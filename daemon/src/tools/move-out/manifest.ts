import { createHash } from 'node:crypto';
import { createReadStream, type Stats } from 'node:fs';
import { HoldfastError } from '@holdfast/shared/errors';
import type { MoveTarget } from '@holdfast/shared/tools';
import { readlinkBeneath } from '../../files/beneath.js';
import { kindOf, openRegularFile } from '../../files/file-kind.js';
import type { ResolvedPath } from '../../files/workspace-path.js';
import { resolveForWrite, type FileWorkspace } from '../file-access.js';
import { canonicalJson } from '../idempotency.js';

/**
 * One frozen `move_out` target (issue 4): identity (device + inode) and, for a file, its sha256;
 * for a symlink, its target and the target's digest; a directory is frozen as one root — its
 * contents are never scanned.
 */
export interface ManifestEntry {
  path: string;
  realRel: string;
  kind: MoveTarget['kind'];
  dev: number;
  ino: number;
  size?: number;
  sha256?: string;
  link_target?: string;
  link_target_sha256?: string;
}

/** sha256 of a regular file, read through a descriptor opened without following symlinks (issue 18). */
function sha256File(p: ResolvedPath): Promise<string> {
  const { fd } = openRegularFile(p.real, p.rel, p.root);
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream('', { fd, autoClose: true })
      .on('data', (c) => h.update(c))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

function kindName(st: Stats): string {
  return kindOf(st);
}

/**
 * Freezes one target: explicit, inside the workspace, allowed by policy, of the declared kind.
 * @throws HoldfastError PATH_OUTSIDE_WORKSPACE, POLICY_DENIED, PATH_NOT_FOUND, BAD_REQUEST (kind).
 */
export async function freezeTarget(ws: FileWorkspace, t: MoveTarget): Promise<ManifestEntry> {
  const p = resolveForWrite(ws, t.path, false);
  const st = p.lstat;
  if (!st) throw new HoldfastError('PATH_NOT_FOUND', `${p.rel} does not exist`, { details: { path: p.rel } });
  const actual = kindName(st);
  if (actual !== t.kind) throw new HoldfastError('BAD_REQUEST', `${p.rel} is a ${actual}, not a ${t.kind}; name each target with its real kind`, { details: { path: p.rel, kind: actual } });
  const e: ManifestEntry = { path: p.rel, realRel: p.realRel, kind: t.kind, dev: st.dev, ino: st.ino };
  if (t.kind === 'file') {
    e.size = st.size;
    e.sha256 = await sha256File(p);
  } else if (t.kind === 'symlink') {
    e.link_target = readlinkBeneath(p.root, p.real);
    e.link_target_sha256 = createHash('sha256').update(e.link_target).digest('hex');
  }
  return e;
}

/**
 * Re-checks a frozen target before it moves: same place, same kind, same inode, same bytes or
 * link target. @returns null when unchanged, else why not.
 */
export async function recheck(ws: FileWorkspace, e: ManifestEntry): Promise<string | null> {
  let fresh: ManifestEntry;
  try {
    fresh = await freezeTarget(ws, { path: e.path, kind: e.kind });
  } catch (err) {
    return (err as Error).message;
  }
  if (fresh.realRel !== e.realRel) return `${e.path} now resolves to another place`;
  if (fresh.dev !== e.dev || fresh.ino !== e.ino) return `${e.path} was replaced by another ${e.kind}`;
  if (fresh.sha256 !== e.sha256) return `${e.path} changed (sha256 ${fresh.sha256} instead of ${e.sha256})`;
  if (fresh.link_target !== e.link_target) return `${e.path} now points to ${fresh.link_target}`;
  return null;
}

/** sha256 of a manifest (canonical JSON of its entries). */
export function manifestDigest(entries: readonly ManifestEntry[]): string {
  return createHash('sha256').update(canonicalJson(entries)).digest('hex');
}

/**
 * Refuses duplicate and nested targets (a file inside a folder that is also a target): each
 * target must be independent so a confirmation means exactly what it lists.
 * @throws HoldfastError BAD_REQUEST.
 */
export function assertIndependent(entries: readonly ManifestEntry[]): void {
  const sorted = [...entries].sort((a, b) => (a.realRel < b.realRel ? -1 : 1));
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (a.realRel === b.realRel) throw new HoldfastError('BAD_REQUEST', `${b.path} is listed twice`);
    if (a.kind === 'directory' && b.realRel.startsWith(`${a.realRel}/`)) throw new HoldfastError('BAD_REQUEST', `${b.path} is inside ${a.path}, which is already a target`);
  }
}
