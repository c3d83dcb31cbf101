import { linkSync, lstatSync, mkdirSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { stageWrite, writeFileAtomic, type StagedWrite, type TempJournal } from '../../files/atomic-write.js';
import { stageInPlace, writeInPlace } from '../../files/in-place-write.js';
import type { EditPlan } from './plan.js';

/** Errors of `link(2)` after which a plain rename (checked for a free destination first) is used. */
const NO_HARDLINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

/**
 * Renames without ever replacing: files and symlinks through `link` + `unlink` (link fails with
 * EEXIST when the destination appeared), folders (and filesystems without hard links) by a
 * checked `rename`.
 * @throws HoldfastError PATH_EXISTS.
 */
export function renameNoReplace(from: string, to: string): void {
  const st = lstatSync(from);
  if (!st.isDirectory()) {
    try {
      linkSync(from, to);
      unlinkSync(from);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') throw new HoldfastError('PATH_EXISTS', `${to} appeared meanwhile; nothing was renamed`);
      if (!NO_HARDLINK.has(code)) throw err;
    }
  }
  if (lstatSync(to, { throwIfNoEntry: false })) throw new HoldfastError('PATH_EXISTS', `${to} appeared meanwhile; nothing was renamed`);
  renameSync(from, to);
}

/** The folders `mkdir -p` created for a path (to remove them again on rollback). */
function ensureParent(path: string): string[] {
  const dir = dirname(path);
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return [];
  const made: string[] = [];
  for (let d = dir; d.length >= first.length; d = dirname(d)) made.push(d);
  return made;
}

type Done = { plan: EditPlan; kind: 'write' | 'rename' };

/**
 * Applies validated plans all-or-nothing (issue 4): every new content is first written to a temp
 * file next to its target and fsynced; only then are they renamed into place (and renames done)
 * in order — or, for a file with other hard links, copied into its inode (issue 9,
 * files/in-place-write.ts). If a step fails, the steps already done are reverted (previous bytes written back
 * atomically, renames moved back, files this call created removed) and the remaining temp files
 * removed; the error is rethrown.
 */
export async function commitPlans(plans: readonly EditPlan[], journal: TempJournal): Promise<void> {
  const made: string[] = [];
  const staged = new Map<EditPlan, StagedWrite>();
  const done: Done[] = [];
  try {
    for (const p of plans) {
      if (p.after !== null) {
        if (p.operation === 'create') made.push(...ensureParent(p.target.real));
        if (p.inPlace && p.before) {
          staged.set(p, await stageInPlace(p.target.real, p.after, { dev: p.before.dev, ino: p.before.ino, ...(p.mode !== null ? { mode: p.mode } : {}) }, { journal }));
        } else {
          staged.set(p, await stageWrite(p.target.real, p.after, { ...(p.mode !== null ? { mode: p.mode } : {}), ...(p.before ? { uid: p.before.uid, gid: p.before.gid } : {}), journal }));
        }
      } else if (p.dest) {
        made.push(...ensureParent(p.dest.real));
      }
    }
    for (const p of plans) {
      const s = staged.get(p);
      if (s) {
        await s.commit();
        done.push({ plan: p, kind: 'write' });
      } else if (p.dest) {
        renameNoReplace(p.target.abs, p.dest.abs);
        done.push({ plan: p, kind: 'rename' });
      }
    }
  } catch (err) {
    for (const s of staged.values()) await s.abort();
    for (const d of done.reverse()) {
      try {
        if (d.kind === 'rename') renameNoReplace(d.plan.dest!.abs, d.plan.target.abs);
        else if (d.plan.before && d.plan.inPlace) await writeInPlace(d.plan.target.real, d.plan.before.bytes, { dev: d.plan.before.dev, ino: d.plan.before.ino, mode: d.plan.before.mode }, { journal });
        else if (d.plan.before) await writeFileAtomic(d.plan.target.real, d.plan.before.bytes, { mode: d.plan.before.mode, journal });
        else unlinkSync(d.plan.target.real); // created by this call a moment ago
      } catch {
        // best effort: the error below names the call that failed
      }
    }
    for (const dir of made.sort((a, b) => b.length - a.length)) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty or gone
      }
    }
    throw err;
  }
}
