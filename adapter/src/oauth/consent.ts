import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { readBody } from '../mcp/node-bridge.js';
import type { OAuthBackend } from './backend.js';
import { consentPage, errorPage, type Page } from './pages.js';
import { OWNER_ACCOUNT } from './provider.js';
import { OAuthRoutes, type OAuthSettings } from './settings.js';

/** Largest consent form body, bytes (a password, a code, a choice). */
const CONSENT_BODY_MAX_BYTES = 16 * 1024;

function send(res: ServerResponse, status: number, page: Page): void {
  res.writeHead(status, page.headers);
  res.end(page.body);
}

/** Where a redirect URI sends the browser, as a CSP source (`https://host:port` or `scheme:`). */
function cspSource(uri: string): string | null {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.protocol;
  } catch {
    return null;
  }
}

function firstOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
}

/**
 * The owner's consent step of an authorization (issue 14, docs/oauth.md "Consent"):
 * `GET /oauth/consent/<uid>` shows the client (name, id, how it registered), where the answer goes,
 * the scope and resource, and lets the owner pick the client's tool set; `POST` with
 * `decision=approve` needs the owner password or a one-time code (checked by the daemon, which
 * counts failures and locks), records the client as principal `oauth:<name>` with that tool set,
 * grants the requested scope for the MCP resource and resumes the authorization (a code and `iss`
 * go to the redirect URI); `decision=deny` answers `access_denied`. The interaction is bound to
 * the browser by oidc-provider's interaction cookie, so the page cannot be completed elsewhere.
 */
export class ConsentHandler {
  constructor(
    private readonly provider: () => Provider,
    private readonly settings: OAuthSettings,
    private readonly backend: OAuthBackend,
    private readonly log: (line: string) => void,
  ) {}

  /** Serves one request to `/oauth/consent/<uid>`; `source` is the client address (for the lockout log). */
  async handle(req: IncomingMessage, res: ServerResponse, uid: string, source: string): Promise<void> {
    const provider = this.provider();
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await provider.interactionDetails(req, res);
    } catch (err) {
      req.resume();
      return send(res, 400, errorPage({ error: 'invalid_request', error_description: `this consent page has expired or was opened in another browser; start the connection again from the client (${(err as Error).message})` }));
    }
    if (details.uid !== uid) {
      req.resume();
      return send(res, 400, errorPage({ error: 'invalid_request', error_description: 'this consent page does not belong to the authorization in progress' }));
    }
    if (req.method === 'GET') return send(res, 200, await this.page(provider, details, null));
    if (req.method !== 'POST') {
      req.resume();
      res.writeHead(405, { allow: 'GET, POST' });
      res.end();
      return;
    }
    const body = await readBody(req, CONSENT_BODY_MAX_BYTES);
    if (!body.ok) return send(res, 413, errorPage({ error: 'invalid_request', error_description: 'the form is too large' }));
    const form = new URLSearchParams(body.body.toString('utf8'));
    const clientId = String(details.params.client_id);
    if (form.get('decision') !== 'approve') {
      this.log(`oauth: the owner denied ${clientId}`);
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the owner denied the request' }, { mergeWithLastSubmission: false });
      return;
    }
    const choice = this.settings.toolChoices.find((c) => c.value === form.get('tool_set'));
    if (!choice) return send(res, 400, await this.page(provider, details, 'pick one of the tool sets offered'));
    const client = await provider.Client.find(clientId);
    const redirectUri = String(details.params.redirect_uri ?? '');
    const password = form.get('password') ?? '';
    const code = form.get('code') ?? '';
    const approved = await this.backend.call('oauth.consent.approve', {
      client_id: clientId,
      ...(client?.clientName ? { client_name: String(client.clientName) } : {}),
      redirect_uri: redirectUri,
      tools: [...choice.tools],
      tool_set: choice.value,
      proof: { ...(password ? { password } : {}), ...(code ? { code } : {}) },
      source,
    });
    if (!approved.ok) return send(res, 403, await this.page(provider, details, approved.message, choice.value));
    const grant = details.grantId ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId: OWNER_ACCOUNT, clientId })) : new provider.Grant({ accountId: OWNER_ACCOUNT, clientId });
    // The grant covers what was asked of this server's scopes (`openid`, `offline_access` and the
    // MCP scope, which is listed among the server's scopes too) and the MCP scope on the resource.
    const known = new Set(['openid', 'offline_access', this.settings.scope]);
    const requested = String(details.params.scope ?? '').split(' ').filter((s) => known.has(s));
    const missing = (details.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
    const oidc = [...new Set([...requested, ...missing.filter((s) => known.has(s))])];
    if (oidc.length > 0) grant.addOIDCScope(oidc.join(' '));
    grant.addResourceScope(this.settings.resource, this.settings.scope);
    const grantId = await grant.save();
    this.log(`oauth: the owner approved ${clientId} as ${approved.principal} (${choice.value})`);
    await provider.interactionFinished(req, res, { login: { accountId: OWNER_ACCOUNT }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  private async page(provider: Provider, details: Awaited<ReturnType<Provider['interactionDetails']>>, error: string | null, selected?: string): Promise<Page> {
    const clientId = String(details.params.client_id);
    const [client, owner, prior] = await Promise.all([
      provider.Client.find(clientId),
      this.backend.call('oauth.owner.status', {}),
      this.backend.call('oauth.principal.get', { client_id: clientId }),
    ]);
    const redirectUri = String(details.params.redirect_uri ?? '');
    const previous = prior.principal?.tool_set;
    const choices = this.settings.toolChoices;
    const pick = selected ?? (previous && choices.some((c) => c.value === previous) ? previous : choices[0]!.value);
    const target = cspSource(redirectUri);
    return consentPage({
      uid: details.uid,
      action: `${OAuthRoutes.consentPrefix}${details.uid}`,
      clientId,
      clientName: client?.clientName ? String(client.clientName) : null,
      registration: (client as unknown as { clientIdMetadataDocument?: boolean } | undefined)?.clientIdMetadataDocument === true ? 'metadata_document' : 'dynamic',
      redirectUri,
      scope: String(details.params.scope ?? this.settings.scope),
      resource: firstOf(details.params.resource) ?? this.settings.resource,
      choices,
      selected: pick,
      passwordSet: owner.password_set,
      lockedUntil: owner.locked_until,
      error,
      formTargets: target ? [target] : [],
    });
  }
}
