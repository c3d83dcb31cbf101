import { linkSync, lstatSync, renameSync, rmdirSync, unlinkSync } from 'node:fs';
import { HoldfastError } from '@holdfast/shared/errors';
import { stageWrite, writeFileAtomic, type StagedWrite, type TempJournal } from '../../files/atomic-write.js';
import { openDirBeneath, openParentBeneath, withParentBeneath, type DirHandle } from '../../files/beneath.js';
import type { ResolvedPath } from '../../files/workspace-path.js';
import { stageInPlace, writeInPlace } from '../../files/in-place-write.js';
import type { EditPlan } from './plan.js';

/** Errors of `link(2)` after which a plain rename (checked for a free destination first) is used. */
const NO_HARDLINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

/**
 * Renames without ever replacing: files and symlinks through `link` + `unlink` (link fails with
 * EEXIST when the destination appeared), folders (and filesystems without hard links) by a
 * checked `rename`. Both names are looked up in folders opened from the workspace root without
 * following symlinks (issue 18), so neither end can be redirected outside meanwhile.
 * @throws HoldfastError PATH_EXISTS, PATH_OUTSIDE_WORKSPACE (a folder on the way was replaced).
 */
export function renameNoReplace(from: ResolvedPath, to: ResolvedPath): void {
  const src = openParentBeneath(from.root, from.real, { shown: from.rel });
  let dst: { dir: DirHandle; name: string } | null = null;
  try {
    dst = openParentBeneath(to.root, to.real, { shown: to.rel });
    const a = src.dir.entry(src.name);
    const b = dst.dir.entry(dst.name);
    const st = lstatSync(a);
    if (!st.isDirectory()) {
      try {
        linkSync(a, b);
        unlinkSync(a);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (code === 'EEXIST') throw new HoldfastError('PATH_EXISTS', `${to.rel} appeared meanwhile; nothing was renamed`);
        if (!NO_HARDLINK.has(code)) throw err;
      }
    }
    if (lstatSync(b, { throwIfNoEntry: false })) throw new HoldfastError('PATH_EXISTS', `${to.rel} appeared meanwhile; nothing was renamed`);
    renameSync(a, b);
  } finally {
    src.dir.close();
    dst?.dir.close();
  }
}

/** Makes the folders of a new file (`mkdir -p` without following symlinks); returns those it made. */
function ensureParent(p: ResolvedPath): string[] {
  const made: string[] = [];
  const { dir } = openParentBeneath(p.root, p.real, { create: true, made, shown: p.rel });
  dir.close();
  return made;
}

/** Removes a folder this call made (rollback), looked up without following symlinks. */
function removeMadeDir(root: string, dir: string): void {
  withParentBeneath(root, dir, (parent, name) => rmdirSync(parent.entry(name)));
}

type Done = { plan: EditPlan; kind: 'write' | 'rename' };

/**
 * Applies validated plans all-or-nothing (issue 4): every new content is first written to a temp
 * file next to its target and fsynced; only then are they renamed into place (and renames done)
 * in order — or, for a file with other hard links, copied into its inode (issue 9,
 * files/in-place-write.ts). If a step fails, the steps already done are reverted (previous bytes written back
 * atomically, renames moved back, files this call created removed) and the remaining temp files
 * removed; the error is rethrown.
 *
 * Bookkeeping (docs/performance.md "Edits"): a temp file's journal row is committed before the
 * file exists (one SQLite commit per file: a crash must never leave an unnamed temp file), but the
 * rows of temp files already renamed (or removed) are not deleted here — their paths are returned,
 * and the caller deletes them in the transaction that records the edit, so a one-file edit commits
 * twice, not three times. A crash in between leaves a row naming a file that no longer exists,
 * which the start-up sweep drops. The folder is not fsynced after a replace (`syncDir: false`,
 * same section); in-place writes keep their folder fsync (their intent file must be durable).
 * @returns journal rows (temp paths) to delete once the edit is recorded.
 */
export async function commitPlans(root: string, plans: readonly EditPlan[], journal: TempJournal): Promise<string[]> {
  const made: string[] = [];
  const staged = new Map<EditPlan, StagedWrite>();
  const done: Done[] = [];
  const settled: string[] = [];
  const lazy: TempJournal = { begin: (p) => journal.begin(p), end: (p) => void settled.push(p), list: () => journal.list() };
  try {
    for (const p of plans) {
      if (p.after !== null) {
        if (p.operation === 'create') made.push(...ensureParent(p.target));
        if (p.inPlace && p.before) {
          staged.set(p, await stageInPlace(p.target.real, p.after, { dev: p.before.dev, ino: p.before.ino, ...(p.mode !== null ? { mode: p.mode } : {}) }, { journal: lazy }));
        } else {
          staged.set(p, await stageWrite(p.target.real, p.after, { ...(p.mode !== null ? { mode: p.mode } : {}), ...(p.before ? { uid: p.before.uid, gid: p.before.gid } : {}), journal: lazy, base: root, syncDir: false }));
        }
      } else if (p.dest) {
        made.push(...ensureParent(p.dest));
      }
    }
    for (const p of plans) {
      const s = staged.get(p);
      if (s) {
        await s.commit();
        done.push({ plan: p, kind: 'write' });
      } else if (p.dest) {
        renameNoReplace(p.target, p.dest);
        done.push({ plan: p, kind: 'rename' });
      }
    }
    return settled;
  } catch (err) {
    for (const s of staged.values()) await s.abort();
    for (const t of settled.splice(0)) journal.end(t);
    for (const d of done.reverse()) {
      try {
        if (d.kind === 'rename') renameNoReplace(d.plan.dest!, d.plan.target);
        else if (d.plan.before && d.plan.inPlace) await writeInPlace(d.plan.target.real, d.plan.before.bytes, { dev: d.plan.before.dev, ino: d.plan.before.ino, mode: d.plan.before.mode }, { journal });
        else if (d.plan.before) await writeFileAtomic(d.plan.target.real, d.plan.before.bytes, { mode: d.plan.before.mode, journal, base: root });
        else withParentBeneath(root, d.plan.target.real, (dir, name) => unlinkSync(dir.entry(name))); // created by this call a moment ago
      } catch {
        // best effort: the error below names the call that failed
      }
    }
    for (const dir of made.sort((a, b) => b.length - a.length)) {
      try {
        removeMadeDir(root, dir);
      } catch {
        // not empty or gone
      }
    }
    throw err;
  }
}
