import { closeSync, constants as fsConstants, fstatSync } from 'node:fs';
import { FileLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import type { EditOperation, ExpectedFormat } from '@holdfast/shared/tools';
import { detectCharset } from '../../files/charset.js';
import { logicalText, normaliseNewlines, openEditable, rebuild } from '../../files/editable-text.js';
import { lstatBeneath, openBeneath } from '../../files/beneath.js';
import { readWhole, sha256Hex } from '../../files/file-facts.js';
import { openRegularFile } from '../../files/file-kind.js';
import { detectFormat, type TextFormat } from '../../files/text-format.js';
import { applyLinePatches, applyReplacements } from '../../files/text-operations.js';
import { unifiedDiff } from '../../files/unified-diff.js';
import type { ResolvedPath } from '../../files/workspace-path.js';
import { assertAllowed } from '../../policy/files.js';
import { resolveForWrite, type FileWorkspace } from '../file-access.js';

/** The file as it was before the call. */
export interface Before {
  bytes: Buffer;
  sha: string;
  mode: number;
  uid: number;
  gid: number;
  /** Hard links of the inode (issue 9): more than one means the file is written in place. */
  links: number;
  dev: bigint;
  ino: bigint;
}

/** One target of an edit call, validated and computed, nothing written yet (issue 4). */
export interface EditPlan {
  index: number;
  operation: EditOperation['operation'];
  /** Workspace-relative path of the target (rename: the source). */
  path: string;
  /** Canonical relative path (read tracking and undo are keyed by it). */
  realRel: string;
  target: ResolvedPath;
  /** rename: where it goes. */
  dest?: ResolvedPath;
  before: Before | null;
  /** Bytes to write (create, update, undo of an update); null for a pure rename. */
  after: Buffer | null;
  afterSha: string | null;
  /** Permission bits of the written file. */
  mode: number | null;
  /**
   * The file has other hard links: the new bytes are written into its inode (files/in-place-write.ts)
   * so every name sees them (issue 9, item 9).
   */
  inPlace: boolean;
  changed: boolean;
  changedLines: number;
  diff: string;
  /** undo: the edit_files row it reverts. */
  undoOf?: { edit_id: string; seq: number };
}

/** Bytes of an `expected_format` check: the format those bytes really have must be the declared one. */
export function checkExpectedFormat(bytes: Buffer, expected: ExpectedFormat, path: string): TextFormat {
  const actual = detectFormat(bytes);
  if (expected.charset === 'binary') return actual;
  const problems: string[] = [];
  if (actual.charset !== expected.charset) problems.push(`charset is ${actual.charset}, not ${expected.charset}`);
  if (actual.bom !== expected.bom) problems.push(actual.bom ? 'it starts with a BOM' : 'it has no BOM');
  if (actual.line_ending !== expected.line_ending && actual.line_ending !== 'none') problems.push(`line endings are ${actual.line_ending}, not ${expected.line_ending}`);
  if (problems.length > 0) {
    throw new HoldfastError('FORMAT_MISMATCH', `content_base64 for ${path} does not have the declared expected_format: ${problems.join('; ')}`, { details: { path, actual } });
  }
  return actual;
}

/** Decodes strict base64. @throws HoldfastError BAD_REQUEST. */
export function decodeBase64(s: string, path: string): Buffer {
  const clean = s.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw new HoldfastError('BAD_REQUEST', `content_base64 for ${path} is not valid base64`);
  return Buffer.from(clean, 'base64');
}

/**
 * Reads the current bytes of an existing regular file for an update, through a descriptor opened
 * without following symlinks on the way (issue 18).
 */
export function readBefore(p: ResolvedPath): Before {
  const file = openRegularFile(p.real, p.rel, p.root);
  try {
    const st = fstatSync(file.fd, { bigint: true });
    if (st.size > BigInt(FileLimits.EDIT_MAX_FILE_BYTES)) {
      throw new HoldfastError('FILE_TOO_LARGE', `${p.rel} has ${st.size} bytes; edit rewrites files up to ${FileLimits.EDIT_MAX_FILE_BYTES} bytes`, { details: { path: p.rel } });
    }
    const bytes = readWhole(file.fd, Number(st.size));
    return { bytes, sha: sha256Hex(bytes), mode: Number(st.mode & 0o7777n), uid: Number(st.uid), gid: Number(st.gid), links: Number(st.nlink), dev: st.dev, ino: st.ino };
  } finally {
    closeSync(file.fd);
  }
}

/** Why a file cannot be opened for writing, by errno (for the HARD_LINKED message). */
const NOT_WRITABLE: Record<string, string> = {
  EACCES: 'is not writable (make it writable with chmod u+w, or edit a copy)',
  EPERM: 'may not be written (an immutable or append-only file)',
  EROFS: 'is on a read-only filesystem',
  ETXTBSY: 'is a program that is running right now (stop it first)',
};

/**
 * Whether an update of `before` is written in place (issue 9, item 9): yes when the file has other
 * hard links — then it is opened for writing (nothing written) to be sure that can be done, and
 * said before anything is written when it cannot.
 * @throws HoldfastError HARD_LINKED when the file has other links but cannot be opened for writing
 *   (replacing it instead would leave the other names with the old bytes).
 */
export function writesInPlace(before: Before, p: ResolvedPath): boolean {
  if (before.links <= 1) return false;
  try {
    // Opened through its folder without following symlinks, never blocking (issue 18).
    closeSync(openBeneath(p.root, p.real, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK));
  } catch (err) {
    if (err instanceof HoldfastError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const why = NOT_WRITABLE[code] ?? `cannot be opened for writing (${code || (err as Error).message})`;
    throw new HoldfastError(
      'HARD_LINKED',
      `${p.rel} has ${before.links} hard links and ${why}, so it cannot be changed in place; replacing it would leave its other ${before.links - 1} name(s) with the old content. Nothing was written`,
      { retryable: false, details: { path: p.rel, links: before.links, errno: code } },
    );
  }
  return true;
}

/** Diff and changed lines of a whole new or replaced file whose bytes may not be text. */
export function wholeFileChange(oldPath: string | null, newPath: string, before: Buffer | null, after: Buffer): { diff: string; changedLines: number } {
  if (detectFormat(after).charset === 'binary' || (before !== null && detectFormat(before).charset === 'binary')) {
    const note = `Binary content: ${before?.length ?? 0} → ${after.length} bytes`;
    return { diff: unifiedDiff({ oldPath, newPath, oldLines: [], newLines: [], hunks: [], oldFinalNewline: true, newFinalNewline: true, binaryNote: note }), changedLines: 0 };
  }
  const b = openEditable(after, detectCharset(after, true));
  if (before === null) {
    const hunks = b.texts.length > 0 ? [{ oldStart: 0, oldCount: 0, newStart: 0, newLines: b.texts }] : [];
    return { diff: unifiedDiff({ oldPath, newPath, oldLines: [], newLines: b.texts, hunks, oldFinalNewline: true, newFinalNewline: b.finalNewline }), changedLines: b.texts.length };
  }
  const a = openEditable(before, detectCharset(before, true));
  const r = rebuild(a, logicalText(b));
  return {
    diff: unifiedDiff({ oldPath, newPath, oldLines: a.texts, newLines: r.newLines, hunks: r.hunks, oldFinalNewline: a.finalNewline, newFinalNewline: b.finalNewline }),
    changedLines: r.changedLines,
  };
}

/** `create`: a new file (never over an existing path). */
function planCreate(ws: FileWorkspace, op: EditOperation, index: number): EditPlan {
  const target = resolveForWrite(ws, op.path);
  if (target.lstat !== null || lstatBeneath(target.root, target.real) !== null) {
    throw new HoldfastError('PATH_EXISTS', `${target.rel} already exists; read it and use operation="update" with its sha256`, { details: { path: target.rel, index } });
  }
  if (op.replacements || op.line_patch || op.base_sha256) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: create takes content or content_base64 only`);
  let after: Buffer;
  if (op.content_base64 !== undefined) {
    if (op.content !== undefined) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: give content or content_base64, not both`);
    if (op.newline_policy !== 'exact' || !op.expected_format) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: content_base64 needs newline_policy="exact" and expected_format`);
    after = decodeBase64(op.content_base64, target.rel);
    checkExpectedFormat(after, op.expected_format, target.rel);
  } else if (op.content !== undefined) {
    after = Buffer.from(op.content, 'utf8');
  } else {
    throw new HoldfastError('BAD_REQUEST', `edits[${index}]: create needs content or content_base64`);
  }
  const change = wholeFileChange(null, target.rel, null, after);
  return {
    index, operation: 'create', path: target.rel, realRel: target.realRel, target, before: null, after, afterSha: sha256Hex(after), mode: null, inPlace: false,
    changed: true, changedLines: change.changedLines, diff: change.diff,
  };
}

/** Hooks into the session's read tracking (read-before-edit, failed-match counting). */
export interface ReadGuard {
  /** @throws HoldfastError READ_REQUIRED when the session has not read `realRel` at `sha`. */
  requireRead(p: ResolvedPath, sha: string): void;
  /** @throws HoldfastError RECOVERY_EXHAUSTED after too many failed matches in a row. */
  beforeMatch(p: ResolvedPath): void;
  /** Counts a failed match; returns the error to throw (RECOVERY_EXHAUSTED at the limit). */
  matchFailed(p: ResolvedPath, err: HoldfastError): HoldfastError;
}

/** `update`: guarded by base_sha256 and read-before-edit; one way of giving the new content. */
function planUpdate(ws: FileWorkspace, op: EditOperation, index: number, guard: ReadGuard): EditPlan {
  const target = resolveForWrite(ws, op.path);
  if (!op.base_sha256) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: update needs base_sha256 (the sha256 read returned for ${target.rel})`, { details: { path: target.rel } });
  const ways = [op.replacements, op.line_patch, op.content, op.content_base64].filter((x) => x !== undefined).length;
  if (ways !== 1) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: update takes exactly one of replacements, line_patch, content, content_base64`);
  const before = readBefore(target);
  if (before.sha !== op.base_sha256) {
    throw new HoldfastError('SHA_MISMATCH', `${target.rel} changed since you read it (base_sha256 ${op.base_sha256}, now ${before.sha}); read it again and redo the edit on the current text`, {
      details: { path: target.rel, base_sha256: op.base_sha256, current_sha256: before.sha },
    });
  }
  guard.requireRead(target, before.sha);
  let after: Buffer;
  let changedLines: number;
  let diff: string;
  if (op.content_base64 !== undefined) {
    if (op.newline_policy !== 'exact' || !op.expected_format) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: content_base64 needs newline_policy="exact" and expected_format`);
    after = decodeBase64(op.content_base64, target.rel);
    checkExpectedFormat(after, op.expected_format, target.rel);
    const change = wholeFileChange(target.rel, target.rel, before.bytes, after);
    diff = change.diff;
    changedLines = change.changedLines;
  } else {
    if (op.newline_policy === 'exact') throw new HoldfastError('BAD_REQUEST', `edits[${index}]: newline_policy="exact" goes with content_base64; text edits keep the file's format`);
    const charset = detectCharset(before.bytes, true);
    if (charset.charset === 'binary') {
      throw new HoldfastError('FORMAT_MISMATCH', `${target.rel} is binary; replace it with content_base64, newline_policy="exact" and expected_format {charset:"binary"}`, { details: { path: target.rel } });
    }
    if (op.expected_format) checkExpectedFormat(before.bytes, op.expected_format, target.rel);
    const doc = openEditable(before.bytes, charset);
    let newText: string;
    if (op.replacements) {
      guard.beforeMatch(target);
      try {
        newText = applyReplacements(logicalText(doc), op.replacements, target.rel);
      } catch (err) {
        if (err instanceof HoldfastError && (err.code === 'MATCH_NOT_FOUND' || err.code === 'MATCH_AMBIGUOUS')) throw guard.matchFailed(target, err);
        throw err;
      }
    } else if (op.line_patch) {
      const lines = applyLinePatches(doc.texts, op.line_patch, target.rel);
      newText = lines.length === 0 ? '' : lines.join('\n') + (doc.finalNewline ? '\n' : '');
    } else {
      newText = normaliseNewlines(op.content!);
    }
    const rebuilt = rebuild(doc, newText);
    after = rebuilt.bytes;
    changedLines = rebuilt.changedLines;
    diff = unifiedDiff({
      oldPath: target.rel, newPath: target.rel, oldLines: rebuilt.oldLines, newLines: rebuilt.newLines, hunks: rebuilt.hunks,
      oldFinalNewline: doc.finalNewline, newFinalNewline: rebuilt.finalNewline,
    });
  }
  const changed = !after.equals(before.bytes);
  return {
    index, operation: 'update', path: target.rel, realRel: target.realRel, target, before, after: changed ? after : null,
    afterSha: sha256Hex(after), mode: before.mode, inPlace: changed && writesInPlace(before, target), changed, changedLines: changed ? changedLines : 0, diff: changed ? diff : '',
  };
}

/** `rename`: moves a file, symlink (as a link) or directory to a free path inside the workspace. */
function planRename(ws: FileWorkspace, op: EditOperation, index: number): EditPlan {
  if (!op.new_path) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: rename needs new_path`);
  if (op.replacements || op.line_patch || op.content !== undefined || op.content_base64 !== undefined) {
    throw new HoldfastError('BAD_REQUEST', `edits[${index}]: rename only moves; change the content with an update in another call`);
  }
  const target = resolveForWrite(ws, op.path, false);
  if (target.lstat === null) throw new HoldfastError('PATH_NOT_FOUND', `${target.rel} does not exist`, { details: { path: target.rel } });
  const isDir = target.lstat.isDirectory();
  assertAllowed(ws.policy, target, isDir);
  const dest = resolveForWrite(ws, op.new_path, false);
  assertAllowed(ws.policy, dest, isDir);
  if (dest.lstat !== null) throw new HoldfastError('PATH_EXISTS', `${dest.rel} already exists; rename never replaces a file`, { details: { path: dest.rel } });
  if (isDir && (dest.real === target.real || dest.real.startsWith(`${target.real}/`))) throw new HoldfastError('BAD_REQUEST', `cannot move ${target.rel} into itself`);
  let before: Before | null = null;
  if (op.base_sha256) {
    if (!target.lstat.isFile()) throw new HoldfastError('BAD_REQUEST', `edits[${index}]: base_sha256 applies to regular files only`);
    before = readBefore(target);
    if (before.sha !== op.base_sha256) {
      throw new HoldfastError('SHA_MISMATCH', `${target.rel} changed since you read it; read it again`, { details: { path: target.rel, base_sha256: op.base_sha256, current_sha256: before.sha } });
    }
  }
  return {
    index, operation: 'rename', path: target.rel, realRel: target.realRel, target, dest, before, after: null, afterSha: before?.sha ?? null, mode: null, inPlace: false,
    changed: true, changedLines: 0, diff: `--- a/${target.rel}\n+++ b/${dest.rel}\nrename from ${target.rel}\nrename to ${dest.rel}\n`,
  };
}

/** Plans one target (undo is planned by undo.ts). */
export function planEdit(ws: FileWorkspace, op: EditOperation, index: number, guard: ReadGuard): EditPlan {
  switch (op.operation) {
    case 'create':
      return planCreate(ws, op, index);
    case 'update':
      return planUpdate(ws, op, index, guard);
    case 'rename':
      return planRename(ws, op, index);
    case 'undo':
      throw new HoldfastError('INTERNAL', 'undo is planned separately');
  }
}
