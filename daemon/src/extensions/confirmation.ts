import { HoldfastError } from '@holdfast/shared/errors';
import { newId } from '@holdfast/shared/ids';
import type { ResultAction, ResultContext } from '@holdfast/shared/tools';
import type { AuditEntry, AuditLog } from '../audit.js';
import { displaySafe } from '../policy/text-safety.js';
import type { ExtensionConfirmationRow, ExtensionConfirmationsRepo } from '../store/extension-confirmations-repo.js';
import type { ExtensionKind } from '../store/extension-describes-repo.js';
import { outcome, type ToolOutcome } from '../tools/envelope.js';
import { jsonSha256 } from './digest.js';

/** One extension call that may need the user's confirmation (issue 13, DESIGN §6.3). */
export interface ConfirmRequest {
  kind: ExtensionKind;
  /** Skill name, or `server/tool`. */
  target: string;
  revision: string;
  args: Record<string, unknown>;
  purpose: string | null;
  sessionId: string;
  principal: string;
  /** What the user is asked (never the argument values). */
  summary: string;
  userConfirmed: boolean;
  /** How long a confirmation stays valid, seconds (`security.commands.confirm_ttl_s`, default 600). */
  ttlS: number;
}

/** The call may run now (`confirmation_id` when a confirmation was used), or the user must be asked. */
export type ConfirmVerdict = { run: true; confirmationId: string | null } | { run: false; row: ExtensionConfirmationRow; previousExpired: boolean };

/** Longest `purpose` of an extension call, characters (as for `execute`). */
export const PURPOSE_MAX_CHARS = 500;

/** @throws HoldfastError BAD_REQUEST for a purpose longer than {@link PURPOSE_MAX_CHARS}. */
export function checkPurpose(purpose: string | undefined): void {
  if (purpose !== undefined && purpose.length > PURPOSE_MAX_CHARS) throw new HoldfastError('BAD_REQUEST', `purpose is longer than ${PURPOSE_MAX_CHARS} characters`, { retryable: false });
}

/** sha256 of an extension call's arguments (what a confirmation and the audit log keep instead of them). */
export function argumentsDigest(args: Record<string, unknown>): string {
  return jsonSha256(args);
}

/**
 * The confirmation of an executable skill or an upstream tool call, as for `execute` (issue 13,
 * DESIGN §6.3 `waiting_confirmation`): the first call records a pending confirmation bound to the
 * target, its revision, the arguments' digest and the purpose, and must be asked; a repeat of the
 * exact same call with `user_confirmed: true` before it expires uses it — once. A repeat whose
 * confirmation expired is asked again (`previousExpired`).
 *
 * @throws HoldfastError CONFIRMATION_NOT_FOUND for `user_confirmed: true` that matches no pending
 *   confirmation (other arguments, purpose, target or revision; or already used): nothing runs.
 */
export function checkConfirmation(repo: ExtensionConfirmationsRepo, r: ConfirmRequest): ConfirmVerdict {
  const argsSha = argumentsDigest(r.args);
  const fingerprint = jsonSha256([r.kind, r.target, r.revision, argsSha, r.purpose]);
  const now = Date.now();
  const pending = repo.pending(r.sessionId, fingerprint);
  const valid = pending !== undefined && pending.expires_at > now;
  if (r.userConfirmed) {
    if (!pending) {
      throw new HoldfastError(
        'CONFIRMATION_NOT_FOUND',
        `no confirmation is waiting for exactly this call (same ${r.kind === 'mcp' ? 'server, tool, schema revision' : 'skill, revision'}, arguments and purpose) in this session, or it was used already: nothing ran. Call without user_confirmed to ask the user`,
        { retryable: false },
      );
    }
    if (valid && repo.take(pending.id, now)) return { run: true, confirmationId: pending.id };
    if (valid) throw new HoldfastError('CONFIRMATION_NOT_FOUND', 'this confirmation was just used by another call: nothing ran', { retryable: false });
  }
  const expires = now + r.ttlS * 1000;
  if (valid) {
    repo.renew(pending.id, expires);
    return { run: false, row: { ...pending, expires_at: expires }, previousExpired: false };
  }
  const row: ExtensionConfirmationRow = {
    id: newId('confirmation'),
    session_id: r.sessionId,
    principal: r.principal,
    kind: r.kind,
    target: r.target,
    revision: r.revision,
    args_sha256: argsSha,
    purpose: r.purpose,
    fingerprint,
    summary: r.summary,
    state: 'pending',
    created_at: now,
    expires_at: expires,
    used_at: null,
  };
  repo.insert(row);
  return { run: false, row, previousExpired: r.userConfirmed && pending !== undefined };
}

/** How a confirmation summary names the arguments: their names and digest, never their values. */
export function argumentsPhrase(args: Record<string, unknown>): string {
  const names = Object.keys(args);
  return names.length > 0 ? ` with arguments ${names.map(displaySafe).join(', ')} (sha256 ${argumentsDigest(args).slice(0, 12)})` : ' without arguments';
}

/**
 * {@link checkConfirmation}, and when the user must be asked, the audit line `askedEvent` (best
 * effort: asking runs nothing).
 */
export function confirmOrAsk(repo: ExtensionConfirmationsRepo, audit: AuditLog, r: ConfirmRequest, entry: Pick<AuditEntry, 'principal' | 'remote_session_id'> & Record<string, unknown>, askedEvent: string): ConfirmVerdict {
  const v = checkConfirmation(repo, r);
  if (!v.run) {
    try {
      audit.append({ ...entry, event: askedEvent, decision: 'confirm' });
    } catch {
      // asking runs nothing
    }
  }
  return v;
}

/**
 * The `waiting_confirmation` result (same shape as `execute`'s: `data.confirmation` with the
 * summary and expiry, `hints.preferred_behavior: ask_confirm`, one action). The action repeats
 * the call with `user_confirmed: true` but WITHOUT its `arguments` — they may hold secrets and are
 * never echoed (issue 13) — so the caller adds the same arguments again.
 */
export function confirmationOutcome(type: string, tool: string, repeat: Record<string, unknown>, v: { row: ExtensionConfirmationRow; previousExpired: boolean }, data: Record<string, unknown>, context: ResultContext): ToolOutcome {
  const { row, previousExpired } = v;
  const until = new Date(row.expires_at).toISOString();
  const act: ResultAction = { tool, arguments: { ...repeat, user_confirmed: true }, reason: 'after the user confirmed: repeat the call with the same arguments (not shown here) and user_confirmed=true' };
  return outcome(
    type,
    'waiting_confirmation',
    { ...data, confirmation: { confirmation_id: row.id, summary: row.summary, arguments_sha256: row.args_sha256, expires_at: row.expires_at, ...(previousExpired ? { previous_expired: true } : {}) } },
    `${previousExpired ? 'The earlier confirmation expired. ' : ''}Needs the user's confirmation: ${row.summary}. Ask the user; if they agree, repeat exactly the same call (same arguments and purpose) with user_confirmed=true (valid until ${until}).`,
    { context, hints: { preferred_behavior: 'ask_confirm', arguments_omitted_from_actions: true }, actions: [act] },
  );
}
