import { randomUUID } from 'node:crypto';
import { FileLimits } from '@holdfast/shared/constants';
import { newId } from '@holdfast/shared/ids';
import type { MovePrepareArgs } from '@holdfast/shared/tools';
import { displaySafe } from '../../policy/text-safety.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import { fileContext, type FileWorkspace } from '../file-access.js';
import { argsDigest, replayReceipt, storeReceipt } from '../idempotency.js';
import { assertIndependent, freezeTarget, manifestDigest, type ManifestEntry } from './manifest.js';

type PrepareArgs = MovePrepareArgs;

/** Idempotency receipts of prepare live under this tool name. */
export const PREPARE_RECEIPT_TOOL = 'move_out.prepare';

function preview(e: ManifestEntry): Record<string, unknown> {
  return { path: e.path, kind: e.kind, ...(e.size !== undefined ? { size: e.size } : {}), ...(e.sha256 ? { sha256: e.sha256 } : {}), ...(e.link_target !== undefined ? { link_target: e.link_target } : {}) };
}

/**
 * `move_out(action="prepare")` (issue 4): read-only. Freezes a manifest of explicit targets and
 * returns a confirmation for the user; nothing moves until `submit`.
 */
export async function prepareMove(ws: FileWorkspace, args: PrepareArgs): Promise<ToolOutcome> {
  const rs = ws.session.id;
  const key = args.idempotency_key ?? `auto-${randomUUID()}`;
  const digest = argsDigest({ ...args, remote_session_id: undefined, idempotency_key: undefined });
  if (args.idempotency_key) {
    const replay = replayReceipt(ws.files.idempotency, PREPARE_RECEIPT_TOOL, rs, key, digest);
    if (replay) return replay;
  }
  const entries: ManifestEntry[] = [];
  for (const t of args.targets) entries.push(await freezeTarget(ws, t));
  assertIndependent(entries);
  const now = Date.now();
  const id = newId('moveRequest');
  const uuid = randomUUID();
  const manifestSha = manifestDigest(entries);
  const expiresAt = now + FileLimits.MOVE_CONFIRM_TTL_MS;
  ws.files.moves.insert({
    id, confirmation_uuid: uuid, session_id: rs, principal: ws.principal, purpose: args.purpose, idempotency_key: key,
    manifest: JSON.stringify(entries), manifest_sha256: manifestSha, created_at: now, expires_at: expiresAt,
  });
  const previews = entries.slice(0, FileLimits.MOVE_PREVIEWS_MAX).map(preview);
  const data = {
    confirmation_uuid: uuid, move_request_id: id, manifest_sha256: manifestSha, idempotency_key: key, expires_at: new Date(expiresAt).toISOString(),
    count: entries.length, previews, purpose: args.purpose,
  };
  // The summary a user confirms: names and purpose shown through displaySafe (one line each, no
  // control or bidirectional characters); the exact values are in `data`.
  const shown = (v: unknown): string => displaySafe(String(v));
  const list = previews.map((p) => `  ${p.kind === 'directory' ? `${shown(p.path)}/ (folder, with everything in it)` : p.kind === 'symlink' ? `${shown(p.path)} (symlink → ${shown(p.link_target)})` : `${shown(p.path)} (${p.size} bytes)`}`).join('\n');
  const more = entries.length > previews.length ? `\n  … and ${entries.length - previews.length} more` : '';
  const text = `Ready to move ${entries.length} item${entries.length === 1 ? '' : 's'} to the trash (${shown(args.purpose)}):\n${list}${more}\nAsk the user to confirm; then call move_out(action="submit", remote_session_id, confirmation_uuid="${uuid}"). Expires ${data.expires_at}.`;
  const result = outcome('move_out.prepared', 'waiting_confirmation', data, text, {
    context: fileContext(ws, args.purpose),
    hints: { preferred_behavior: 'ask_confirm' },
    actions: [action('move_out', { action: 'submit', remote_session_id: rs, confirmation_uuid: uuid }, 'after the user confirms: move these to the trash')],
  });
  storeReceipt(ws.files.idempotency, PREPARE_RECEIPT_TOOL, rs, key, digest, result);
  return result;
}
