import { SecretLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { SECRET_NAME_RE, type SecretListResult } from '@holdfast/shared/protocol';
import { ELICITATION_META_KEY } from '@holdfast/shared/tool-constants';
import type { secretProvideTool, UrlElicitationRequest } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { requireSessionAccess } from '../sessions/access.js';
import type { GuardianLink } from '../sessions/link.js';
import type { SessionManager } from '../sessions/manager.js';
import type { ToolContext } from './context.js';
import { action, failure, outcome, type ToolOutcome } from './envelope.js';

type Args = z.output<typeof secretProvideTool.input>;

/** The command the user runs in their own terminal. */
export function provideCommand(rs: string, name: string): string {
  return `holdfast secret provide ${rs} ${name}`;
}

/**
 * The session's guardian, which must hold secrets (issue 12).
 * @throws HoldfastError BAD_REQUEST for a guardian from before secrets.
 */
export async function secretsLink(sessions: Pick<SessionManager, 'ensureLink'>, rs: string): Promise<GuardianLink> {
  const link = await sessions.ensureLink(rs);
  if (!link.holdsSecrets) {
    throw new HoldfastError('BAD_REQUEST', `the guardian of ${rs} was started by an older holdfast and cannot hold secrets; open a new session for this`, { retryable: false });
  }
  return link;
}

/**
 * `secret_provide` (issue 12, docs/secrets.md). `request` (editor): a secret already held answers
 * at once; otherwise the request is recorded in the guardian and — when the client declared
 * URL-mode elicitation — a one-time loopback page is opened whose URL goes to the adapter in
 * `_meta` (never to the model); the answer is `waiting_user` with the `holdfast secret provide`
 * command. When the adapter re-runs the call with the user's answer: `accept` waits (bounded) for
 * the value, `decline`/`cancel` closes the page (`SECRET_DECLINED`). `status` (viewer) says whether
 * it is held; `forget` (editor) drops it. Values never reach this process on this path.
 */
export async function secretProvideHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  if (!SECRET_NAME_RE.test(args.name)) {
    throw new HoldfastError('BAD_REQUEST', `name ${JSON.stringify(args.name)} must be an environment variable name (letters, digits, _; not starting with a digit)`, { retryable: false });
  }
  const { session } = requireSessionAccess(ctx, args.remote_session_id, args.action === 'status' ? 'viewer' : 'editor');
  const rs = session.id;
  const name = args.name;
  const link = await secretsLink(ctx.services.sessions, rs);
  const context = { remote_session_id: rs, ...(args.purpose ? { purpose: args.purpose } : {}) };
  const audit = (event: string, extra: Record<string, unknown> = {}): void =>
    ctx.services.execution.audit.append({ event, principal: ctx.call.principal, remote_session_id: rs, name, ...extra, ...(ctx.call.request_id ? { request_id: ctx.call.request_id } : {}) });

  if (args.action === 'forget') {
    const { forgotten } = await link.secretForget(name);
    audit('secret.forgotten', { held: forgotten });
    return outcome('secret.forget', 'succeeded', { name, forgotten }, forgotten ? `${name} was dropped from the session's memory.` : `${name} was not held.`, { context });
  }

  const list = await link.secretList();
  if (args.action === 'status') return statusOutcome(list, name, rs, context);

  const held = list.secrets.find((s) => s.name === name);
  if (held) return heldOutcome(held, rs, context, 'is held already');
  const response = ctx.call.elicitation?.response;
  if (response === 'decline' || response === 'cancel') {
    await link.secretCancel(name);
    audit('secret.declined', { via: 'page', answer: response });
    return failure('secret.request', new HoldfastError('SECRET_DECLINED', `the user ${response === 'decline' ? 'declined' : 'dismissed'} the request for ${name}; do not ask again unless the user says so`, { retryable: false }), {
      context,
      hints: { command: provideCommand(rs, name) },
    });
  }
  if (response === 'accept') {
    const after = await link.secretWait({ name, waitMs: Math.min(SecretLimits.ACCEPTED_WAIT_MS, ctx.services.config.config.limits.request_timeout_ms - 5000) }, ctx.signal);
    const got = after.secrets.find((s) => s.name === name);
    if (got) {
      audit('secret.provided', { via: got.via });
      return heldOutcome(got, rs, context, 'was provided by the user');
    }
    return statusOutcome(after, name, rs, context);
  }
  const purpose = args.purpose?.trim() ?? '';
  if (purpose === '') throw new HoldfastError('BAD_REQUEST', 'action=request needs purpose: why the secret is needed (the user reads it before giving it)', { retryable: false });
  const page = ctx.call.elicitation?.url === true;
  const r = await link.secretRequest({ name, purpose, page, ttlMs: SecretLimits.PAGE_TTL_MS });
  audit('secret.requested', { purpose, page });
  const command = provideCommand(rs, name);
  const data: Record<string, unknown> = { name, purpose, command, ...(r.request.page ? { page_expires_at: r.request.page.expiresAt } : {}) };
  const text = `waiting_user: ${name} must come from the user. Ask them to run this in their own terminal (not through execute): ${command} — then call secret_provide(action="status").`;
  const o = outcome('secret.request', 'waiting_user', data, text, {
    context,
    actions: [action('secret_provide', { action: 'status', remote_session_id: rs, name }, 'after the user gave it')],
  });
  if (r.url !== undefined) {
    const request: UrlElicitationRequest = { mode: 'url', url: r.url, message: `An agent asks for ${name}: ${purpose}. Open the page to enter it; the agent never sees the value.` };
    o.meta = { [ELICITATION_META_KEY]: request };
  }
  return o;
}

function heldOutcome(s: SecretListResult['secrets'][number], rs: string, context: Record<string, string>, how: string): ToolOutcome {
  return outcome('secret.status', 'succeeded', { name: s.name, purpose: s.purpose, provided_at: s.providedAt, via: s.via }, `${s.name} ${how}; use it with execute(secrets=["${s.name}"]) — output shows [secret:${s.name}].`, {
    context,
    actions: [action('execute', { action: 'run', remote_session_id: rs, command: `printenv ${s.name} >/dev/null && echo ${s.name} is set`, secrets: [s.name] }, 'use it in a command')],
  });
}

function statusOutcome(list: SecretListResult, name: string, rs: string, context: Record<string, string>): ToolOutcome {
  const held = list.secrets.find((s) => s.name === name);
  if (held) return heldOutcome(held, rs, context, 'is held');
  const req = list.requests.find((r) => r.name === name);
  if (req) {
    const command = provideCommand(rs, name);
    const declined = req.page?.state === 'declined';
    return outcome(
      'secret.status',
      'waiting_user',
      { name, purpose: req.purpose, requested_at: req.requestedAt, command, ...(req.page ? { page: req.page.state, page_expires_at: req.page.expiresAt } : {}) },
      declined
        ? `The user declined ${name} on its page. They can still run: ${command}`
        : `${name} is not provided yet. The user runs in their own terminal: ${command}${req.page ? ' (or uses the page they were shown)' : ''}.`,
      { context, actions: [action('secret_provide', { action: 'status', remote_session_id: rs, name }, 'check again later')] },
    );
  }
  return failure('secret.status', new HoldfastError('SECRET_NOT_FOUND', `no secret ${name} in this session and none requested`, { retryable: false }), {
    context,
    actions: [action('secret_provide', { action: 'request', remote_session_id: rs, name, purpose: '…why it is needed…' }, 'ask the user for it')],
  });
}
