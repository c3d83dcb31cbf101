import { closeSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { FileLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { newId } from '@holdfast/shared/ids';
import type { editTool, ResultAction } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { lstatBeneath } from '../../files/beneath.js';
import { readWhole, sha256Hex } from '../../files/file-facts.js';
import { openRegularFile } from '../../files/file-kind.js';
import { detectFormat } from '../../files/text-format.js';
import { previewOf } from '../../files/unified-diff.js';
import { resolveWorkspacePath, type ResolvedPath } from '../../files/workspace-path.js';
import type { ToolContext } from '../context.js';
import { action, failure, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, openWorkspace, type FileWorkspace } from '../file-access.js';
import { argsDigest, replayReceipt, storeReceipt } from '../idempotency.js';
import { commitPlans } from './commit.js';
import { editFailureActions } from './failure-actions.js';
import { planEdit, type EditPlan, type ReadGuard } from './plan.js';
import { planUndo } from './undo.js';
import { runVerify, verifyVerdict, type VerifyResult } from './verify.js';

type Args = z.output<typeof editTool.input>;

/** Dry runs return the diff inline up to this many bytes. */
const DRY_RUN_DIFF_MAX_BYTES = 64 * 1024;

/**
 * Readback of a written or renamed file (issue 4): what is on disk now — the regular file at the
 * path itself, opened without following a symlink anywhere (issue 18: a renamed symlink that
 * points outside is described as a symlink, never by the bytes it points to).
 */
function readback(p: ResolvedPath): Record<string, unknown> | null {
  let file;
  try {
    file = openRegularFile(p.real, p.rel, p.root);
  } catch {
    const st = lstatBeneathOrNull(p);
    return st?.isSymbolicLink() ? { kind: 'symlink' } : null;
  }
  try {
    const bytes = readWhole(file.fd, file.st.size);
    const f = detectFormat(bytes);
    return { byte_length: bytes.length, sha256: sha256Hex(bytes), format: f, tail_hex: bytes.subarray(Math.max(0, bytes.length - 16)).toString('hex') };
  } finally {
    closeSync(file.fd);
  }
}

function lstatBeneathOrNull(p: ResolvedPath): ReturnType<typeof lstatBeneath> {
  try {
    return lstatBeneath(p.root, p.real);
  } catch {
    return null;
  }
}

/** Readback of bytes not written (dry run). */
function plannedReadback(bytes: Buffer): Record<string, unknown> {
  return { byte_length: bytes.length, sha256: sha256Hex(bytes), format: detectFormat(bytes), tail_hex: bytes.subarray(Math.max(0, bytes.length - 16)).toString('hex') };
}

function guardFor(ws: FileWorkspace): ReadGuard {
  const rs = ws.session.id;
  const reads = ws.files.reads;
  const max = FileLimits.RECOVERY_MAX_FAILED_MATCHES;
  return {
    requireRead(p, sha) {
      if (reads.hasRead(ws.reader, p.realRel, sha)) return;
      throw new HoldfastError('READ_REQUIRED', `read ${p.rel} in this conversation before updating it (edits apply to text you have seen at its current sha256 ${sha})`, {
        details: { path: p.rel, current_sha256: sha },
      });
    },
    beforeMatch(p) {
      const row = reads.get(ws.reader, p.realRel);
      if (row && row.failed_matches >= max) {
        throw new HoldfastError('RECOVERY_EXHAUSTED', `${row.failed_matches} replacements in a row did not match in ${p.rel}: stop retrying; read the file again (force=true), then use line_patch or content`, {
          details: { path: p.rel, failed_matches: row.failed_matches },
        });
      }
    },
    matchFailed(p, err) {
      const n = reads.recordMatchFailure(ws.reader, p.realRel);
      const details = { ...(err.details ?? {}), failed_matches: n };
      if (n < max) return new HoldfastError(err.code, err.message, { details });
      return new HoldfastError('RECOVERY_EXHAUSTED', `${err.message} — that is ${n} failed matches in a row on ${p.rel}: stop retrying; read the file again (force=true), then use line_patch or content`, { details });
    },
  };
}

/** Refuses two edits of the same file (or a rename onto another target) in one call. */
function assertDistinct(plans: readonly EditPlan[]): void {
  const seen = new Map<string, number>();
  for (const p of plans) {
    for (const key of [p.realRel, ...(p.dest ? [p.dest.realRel] : [])]) {
      const prev = seen.get(key);
      if (prev !== undefined) throw new HoldfastError('BAD_REQUEST', `edits[${prev}] and edits[${p.index}] both touch ${key}; give each file once per call`, { details: { path: key } });
      seen.set(key, p.index);
    }
  }
}

/**
 * Records a committed call in one transaction: edit rows with undo bytes, read tracking, and the
 * deletion of the temp-file journal rows `settled` (commitPlans); then the audit line.
 */
function record(ctx: ToolContext, ws: FileWorkspace, editId: string, plans: readonly EditPlan[], diff: string, purpose: string | undefined, settled: readonly string[]): void {
  const rs = ws.session.id;
  const now = Date.now();
  const stored = previewOf(diff, FileLimits.DIFF_STORE_MAX_BYTES);
  const text = stored.truncated ? `${stored.text}[diff truncated at ${FileLimits.DIFF_STORE_MAX_BYTES} bytes]\n` : stored.text;
  ws.files.transaction(() => {
    for (const t of settled) ws.files.temps.end(t);
    ws.files.edits.insert({ id: editId, session_id: rs, purpose: purpose ?? null, created_at: now, files: plans.length, diff: text, diff_lines: text.split('\n').length - 1 });
    plans.forEach((p, seq) => {
      const keepUndo = p.before !== null && p.after !== null && p.before.bytes.length <= FileLimits.UNDO_MAX_BYTES;
      ws.files.editFiles.insert({
        edit_id: editId, seq, session_id: rs, operation: p.operation, path: p.realRel, new_path: p.dest?.realRel ?? null,
        before_sha: p.before?.sha ?? null, after_sha: p.afterSha, before_blob: keepUndo ? gzipSync(p.before!.bytes) : null,
        mode: p.before?.mode ?? null, created_at: now,
      });
      if (p.undoOf) ws.files.editFiles.markUndone(p.undoOf, editId);
      if (p.dest) {
        ws.files.reads.forget(rs, p.realRel);
        if (p.afterSha) ws.files.reads.recordRead(ws.reader, p.dest.realRel, p.afterSha, null);
      } else if (p.afterSha) {
        ws.files.reads.recordRead(ws.reader, p.realRel, p.afterSha, null);
        ws.files.reads.resetMatchFailures(ws.reader, p.realRel);
      }
    });
  });
  appendAudit(ws, {
    event: 'edit.applied', principal: ctx.call.principal, remote_session_id: rs, edit_id: editId, ...(purpose ? { purpose } : {}),
    files: plans.map((p) => ({ operation: p.operation, path: p.path, ...(p.dest ? { new_path: p.dest.rel } : {}), before_sha256: p.before?.sha ?? null, after_sha256: p.afterSha })),
  });
}

/** Audits a change that already happened: a failing audit log must not turn it into a failure. */
function appendAudit(ws: FileWorkspace, entry: Parameters<FileWorkspace['files']['audit']['append']>[0]): void {
  try {
    ws.files.audit.append(entry);
  } catch {
    // the change is on disk and recorded in the edits table; a broken audit log must not hide that
  }
}

function verifyText(v: VerifyResult): string {
  if (!v.ran) return `verify_command not run${v.decision === 'allow' ? '' : ` (${v.decision})`}: ${v.reason}`;
  if (v.state === 'running') return `verify_command still running as ${v.execution_task_id}; attach with execute(action="attach")`;
  const out = [v.stdout, v.stderr ? `[stderr]\n${v.stderr}` : ''].filter(Boolean).join('\n');
  return `verify_command ${v.passed ? 'passed' : `failed (exit ${v.exit_code ?? v.signal})`}${out ? `:\n${out}` : ''}`;
}

/**
 * `edit` (issue 4): create, update, rename and undo workspace files — 1..max_patch_files distinct
 * targets, all validated before any byte is written, all-or-nothing, atomic, formats kept, guarded
 * by base_sha256 and read-before-edit; idempotency keys replay the first receipt; dry runs return
 * the diff; an optional verify_command runs afterwards under the execute policy.
 */
export async function editHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const ws = openWorkspace(ctx, args.remote_session_id, 'editor');
  const rs = ws.session.id;
  const context = fileContext(ws, args.purpose);
  // New bytes and their records need room: none while the disk is full (issue 18).
  if (!args.dry_run) ctx.services.disk.assertWritable('edit');
  const key = args.dry_run ? undefined : args.idempotency_key;
  const digest = key ? argsDigest({ ...args, remote_session_id: undefined }) : '';
  if (key) {
    const replay = replayReceipt(ws.files.idempotency, 'edit', rs, key, digest);
    if (replay) return replay;
  }
  if (args.edits.length > ws.policy.maxPatchFiles) {
    throw new HoldfastError('LIMIT_EXCEEDED', `${args.edits.length} edits in one call; the policy allows ${ws.policy.maxPatchFiles} (max_patch_files): split the change`);
  }
  // Lock every path the call may touch (canonical, sorted) so checks and writes cannot interleave.
  const keys: string[] = [];
  for (const op of args.edits) {
    for (const p of [op.path, ...(op.new_path ? [op.new_path] : [])]) {
      try {
        keys.push(resolveWorkspacePath(ws.root, p, { followFinal: op.operation !== 'rename' }).real);
      } catch {
        // refused again, with its message, during planning
      }
    }
  }
  // verify_command runs a shell command: only a principal allowed `execute` may give one
  // (issue 18: it would otherwise be a shell for principals limited to reading and editing).
  if (args.verify_command && !ctx.call.allowed_tools.includes('execute')) {
    throw new HoldfastError('TOOL_NOT_ALLOWED', `verify_command runs a shell command, which needs the execute tool; principal ${ctx.call.principal} is not allowed execute — edit without verify_command`);
  }
  // A check that policy would not run is refused before any byte is written: an edit that cannot
  // be verified as asked should not be applied half-way to what the agent meant.
  if (args.verify_command && !args.dry_run) {
    const v = verifyVerdict(ctx, ws, args.verify_command);
    if (v.decision !== 'allow') {
      const { verify_command: _omit, ...withoutVerify } = args;
      return failure(
        'edit',
        new HoldfastError('POLICY_DENIED', `verify_command ${v.decision === 'deny' ? 'is denied' : 'needs the user\'s confirmation, which edit cannot ask for'} (${v.reason}); nothing was written — edit without it, then run the check with execute`),
        {
          context,
          actions: [
            action('edit', withoutVerify as Record<string, unknown>, 'apply the edit without the check'),
            action('execute', { remote_session_id: rs, command: args.verify_command }, 'run the check with execute (it can ask for confirmation)'),
          ],
        },
      );
    }
  }
  const guard = guardFor(ws);
  let plans: EditPlan[] = [];
  let result: ToolOutcome;
  let failedIndex = -1;
  try {
    result = await ws.files.locks.withAll(keys, async () => {
      plans = [];
      for (const [i, op] of args.edits.entries()) {
        failedIndex = i;
        plans.push(op.operation === 'undo' ? planUndo(ws, op, i) : planEdit(ws, op, i, guard));
      }
      failedIndex = -1;
      assertDistinct(plans);
      const changedLines = plans.filter((p) => p.operation !== 'undo').reduce((n, p) => n + p.changedLines, 0);
      if (changedLines > ws.policy.maxPatchLines) {
        throw new HoldfastError('LIMIT_EXCEEDED', `this call changes ${changedLines} lines; the policy allows ${ws.policy.maxPatchLines} per call (max_patch_lines): split it into smaller edits`, {
          details: { changed_lines: changedLines, max_patch_lines: ws.policy.maxPatchLines },
        });
      }
      const diff = plans.map((p) => p.diff).join('');
      const changed = plans.filter((p) => p.changed);
      if (args.dry_run) {
        const d = previewOf(diff, DRY_RUN_DIFF_MAX_BYTES);
        const files = plans.map((p) => ({
          path: p.path, operation: p.operation, ...(p.dest ? { new_path: p.dest.rel } : {}), changed: p.changed, changed_lines: p.changedLines,
          readback: p.after ? plannedReadback(p.after) : null,
        }));
        return outcome('edit.dry_run', 'succeeded', { dry_run: true, files, changed_lines: changedLines, diff: d.text, diff_truncated: d.truncated }, `Dry run: ${changed.length} of ${plans.length} files would change (${changedLines} lines); nothing was written.\n${d.text}`, { context });
      }
      const editId = newId('edit');
      if (changed.length > 0) {
        const settled = await commitPlans(ws.root, changed, ws.files.temps);
        record(ctx, ws, editId, changed, diff, args.purpose, settled);
      }
      const files = plans.map((p) => ({
        path: p.path, operation: p.operation, ...(p.dest ? { new_path: p.dest.rel } : {}), changed: p.changed, changed_lines: p.changedLines,
        ...(p.inPlace && p.before ? { hard_links: p.before.links, written_in_place: true } : {}),
        readback: readback(p.dest ?? p.target),
      }));
      const prev = previewOf(diff, FileLimits.DIFF_PREVIEW_BYTES);
      const diffLines = diff === '' ? 0 : diff.split('\n').length - 1;
      const data: Record<string, unknown> = {
        edit_id: changed.length > 0 ? editId : null, dry_run: false, files, changed_lines: changedLines,
        diff_preview: prev.text, diff_truncated: prev.truncated, diff_lines: diffLines,
      };
      const actions: ResultAction[] = prev.truncated ? [action('observe', { view: 'diff', remote_session_id: rs, edit_id: editId, offset: 0, limit: 400 }, 'read the whole diff')] : [];
      const summary = files.map((f) => `  ${f.path}${'new_path' in f ? ` → ${f.new_path}` : ''}: ${f.operation}${f.changed ? `, ${f.changed_lines} line${f.changed_lines === 1 ? '' : 's'} changed` : ', no change'}${'hard_links' in f ? `, written in place (${f.hard_links} hard links: every name sees the change)` : ''}${typeof f.readback?.sha256 === 'string' ? `, sha256 ${f.readback.sha256}` : ''}`);
      const head = changed.length > 0 ? `Edited ${changed.length} file${changed.length === 1 ? '' : 's'} (${editId}):` : 'Nothing to change: the files already have this content.';
      const text = `${head}\n${summary.join('\n')}${prev.text ? `\n${prev.text}` : ''}${prev.truncated ? `[diff continues: observe(view="diff", edit_id="${editId}")]` : ''}`;
      return outcome('edit.applied', 'succeeded', data, text, { context, actions });
    });
  } catch (err) {
    const op = failedIndex >= 0 ? args.edits[failedIndex] : undefined;
    return failure('edit', err, { context, actions: editFailureActions(ws, err, op), ...(failedIndex >= 0 ? { data: { index: failedIndex, path: op?.path ?? null } } : {}) });
  }
  if (args.verify_command && !args.dry_run && result.envelope.status === 'succeeded') {
    // The edit is on disk now: whatever happens to the check, the result must say so (issue 18).
    const v = await runVerify(ctx, ws, args.verify_command, String(result.envelope.data?.edit_id ?? 'a no-op edit')).catch(
      (err: unknown): VerifyResult => ({ command: args.verify_command!, ran: false, passed: false, decision: 'allow', reason: `it could not be started: ${(err as Error).message}` }),
    );
    const data = { ...(result.envelope.data ?? {}), verify: v };
    const status = v.passed ? 'succeeded' : 'completed_with_issues';
    const actions = [...result.envelope.actions];
    if (v.ran && v.state === 'running' && v.execution_task_id) actions.push(action('execute', { action: 'attach', remote_session_id: rs, execution_task_id: v.execution_task_id }, 'wait for the verify command'));
    result = outcome('edit.applied', status, data, `${result.text}\n${verifyText(v)}${v.passed ? '' : '\nThe edit is applied; fix the problem with another edit.'}`, { context, actions, hints: result.envelope.hints });
  }
  if (key) storeReceipt(ws.files.idempotency, 'edit', rs, key, digest, result);
  return result;
}
