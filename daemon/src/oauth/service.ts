import { HoldfastError } from '@holdfast/shared/errors';
import type { HomeLayout } from '@holdfast/shared/paths';
import { RESERVED_TOOL_NAMES } from '@holdfast/shared/tool-constants';
import type { AuditLog } from '../audit.js';
import type { ConfigStore } from '../config-store.js';
import type { Logger } from '../log.js';
import type { ControlHandlers } from '../router.js';
import type { Db } from '../store/db.js';
import { SigningKeys } from './keys.js';
import { OwnerProof } from './owner-proof.js';
import { OAUTH_PRINCIPAL_PREFIX, OAuthPrincipals } from './principals.js';
import { OAuthStore } from './store.js';

/** Control handlers of the OAuth methods (`oauth.*`). */
export type OAuthHandlers = Pick<ControlHandlers, Extract<keyof ControlHandlers, `oauth.${string}`>>;

/** What changed, for the adapters' caches (`ControlEvents.oauthChanged`). */
export interface OAuthChange {
  /** Signing keys rotated: reload them. */
  keys?: boolean;
  /**
   * OAuth principals (`oauth:…`) whose client or a grant was just revoked: adapters close their
   * MCP transport sessions (the next request gets 401, or 404 with a token of a new approval).
   */
  revoked?: { principals: string[] };
}

/** Retired signing keys stay this long beyond the longest token lifetime, ms. */
const KEY_RETIREMENT_MARGIN_MS = 5 * 60 * 1000;
/** ID tokens (only if a client asks for `openid`) live this long (oidc-provider's default), s. */
const ID_TOKEN_TTL_S = 3600;
const KNOWN_TOOLS = new Set<string>(RESERVED_TOOL_NAMES);

interface GrantPayload {
  clientId?: string;
  accountId?: string;
  openid?: { scope?: string };
  resources?: Record<string, string>;
  iat?: number;
  exp?: number;
}

/**
 * The daemon's half of holdfast's OAuth authorization server (issue 14, docs/oauth.md): the
 * storage oidc-provider runs on (in the adapter, over the control socket), the signing keys, the
 * owner's proof at consent, the approved clients as principals, and the `holdfast oauth …`
 * administration. Every change an adapter caches (keys, approvals, grants) is announced with
 * `notify`, which the daemon broadcasts as `oauth.changed`.
 */
export class OAuthService {
  readonly store: OAuthStore;
  readonly keys: SigningKeys;
  readonly proof: OwnerProof;
  readonly principals: OAuthPrincipals;

  constructor(
    db: Db,
    layout: HomeLayout,
    private readonly config: ConfigStore,
    private readonly log: Logger,
    private readonly audit: AuditLog,
    private readonly notify: (change: OAuthChange) => void,
  ) {
    this.store = new OAuthStore(db);
    this.keys = new SigningKeys(db, layout, log);
    this.proof = new OwnerProof(db, layout, () => this.config.config.auth.oauth, log, audit);
    this.principals = new OAuthPrincipals(db);
  }

  /** How long a retired key must still verify tokens: the longest token it signed, plus a margin, ms. */
  private verifyWindowMs(): number {
    return Math.max(this.config.config.auth.oauth.access_token_ttl_s, ID_TOKEN_TTL_S) * 1000 + KEY_RETIREMENT_MARGIN_MS;
  }

  handlers(): OAuthHandlers {
    return {
      'oauth.store.upsert': (p) => {
        this.store.upsert(p.model, p.id, p.payload, p.expires_in_s);
        return {};
      },
      'oauth.store.find': (p) => ({ payload: this.store.find(p.model, p.id) }),
      'oauth.store.find_by_uid': (p) => ({ payload: this.store.findSessionByUid(p.uid) }),
      'oauth.store.consume': (p) => {
        this.store.consume(p.model, p.id);
        return {};
      },
      'oauth.store.destroy': (p) => {
        if (this.store.destroy(p.model, p.id) && p.model === 'Grant') this.notify({});
        return {};
      },
      'oauth.store.revoke_grant': (p) => {
        const removed = this.store.revokeByGrantId(p.grant_id);
        this.notify({});
        return { removed };
      },
      'oauth.keys': () => ({ keys: this.keys.jwks(this.verifyWindowMs()), cookie_keys: this.keys.cookieKeys() }),
      'oauth.keys.rotate': () => {
        const r = this.keys.rotate(this.verifyWindowMs());
        this.notify({ keys: true });
        return r;
      },
      'oauth.principal.get': (p) => {
        const principal = this.principals.get(p.client_id);
        if (!principal || p.grant_id === undefined) return { principal };
        const grant = this.store.find('Grant', p.grant_id) as GrantPayload | null;
        return { principal: grant && grant.clientId === p.client_id ? principal : null };
      },
      'oauth.consent.approve': async (p) => {
        const unknown = p.tools.filter((t) => !KNOWN_TOOLS.has(t));
        if (unknown.length > 0) throw new HoldfastError('BAD_REQUEST', `unknown tool name(s): ${unknown.join(', ')}`);
        const proof = await this.proof.verify(p.proof, p.source);
        if (!proof.ok) return { ok: false as const, reason: proof.reason, message: proof.message, ...(proof.locked_until !== undefined ? { locked_until: proof.locked_until } : {}) };
        const principal = this.principals.approve({ client_id: p.client_id, client_name: p.client_name, tools: p.tools, tool_set: p.tool_set, redirect_uri: p.redirect_uri, by: proof.by });
        this.log.info('oauth client approved', { client_id: p.client_id, principal, tool_set: p.tool_set, by: proof.by });
        this.auditLine({ event: 'oauth.client_approved', client_id: p.client_id, oauth_principal: principal, tool_set: p.tool_set, tools: p.tools, approved_by: proof.by, redirect_uri: p.redirect_uri, source: p.source });
        this.notify({});
        return { ok: true as const, principal };
      },
      'oauth.owner.status': () => this.proof.status(),
      'oauth.approval_code': () => {
        const { code, expires_at } = this.proof.newCode();
        const pending = this.store.list('Interaction').map((r) => {
          const params = (r.payload.params ?? {}) as Record<string, unknown>;
          return {
            client_id: String(params.client_id ?? ''),
            redirect_uri: typeof params.redirect_uri === 'string' ? params.redirect_uri : null,
            scope: typeof params.scope === 'string' ? params.scope : null,
            expires_at: r.expires_at,
          };
        });
        return { code, expires_at, pending };
      },
      'oauth.password.set': (p) => this.proof.setPassword(p.password),
      'oauth.clients': () => this.clients(),
      'oauth.grants': () => ({
        grants: this.store.list('Grant').map((r) => {
          const g = r.payload as GrantPayload;
          const clientId = g.clientId ?? '';
          return {
            grant_id: r.id,
            client_id: clientId,
            principal: this.principals.get(clientId)?.principal ?? null,
            scope: [g.openid?.scope ?? '', ...Object.values(g.resources ?? {})].join(' ').trim(),
            resources: Object.keys(g.resources ?? {}),
            created_at: r.created_at,
            expires_at: r.expires_at,
            refresh_tokens: this.store.countForGrant('RefreshToken', r.id),
          };
        }),
      }),
      'oauth.revoke': (p) => this.revoke(p.target),
    };
  }

  private clients() {
    const dynamic = this.store.list('Client').map((r) => {
      const c = r.payload as { client_id?: string; client_name?: string; redirect_uris?: string[] };
      const id = c.client_id ?? r.id;
      return { client_id: id, client_name: c.client_name ?? null, registration: 'dynamic' as const, redirect_uris: c.redirect_uris ?? [], principal: this.principals.get(id), created_at: r.created_at };
    });
    const known = new Set(dynamic.map((c) => c.client_id));
    const documents = this.principals
      .list()
      .filter((p) => !known.has(p.client_id))
      .map((p) => ({ client_id: p.client_id, client_name: p.client_name, registration: 'metadata_document' as const, redirect_uris: [], principal: p, created_at: null }));
    return { clients: [...dynamic, ...documents] };
  }

  /**
   * `holdfast oauth revoke TARGET`: a principal (`oauth:…`) or client id loses its approval, its
   * grants and every token of them; a grant id loses that grant and its tokens. Access tokens
   * already issued stop working at once (the resource server checks the approval and the grant),
   * and the adapters close the MCP transport sessions opened with them (`revoked` in the change).
   * @throws HoldfastError BAD_REQUEST when nothing is named TARGET.
   */
  private revoke(target: string): { principals: string[]; grants: string[]; tokens: number } {
    const byPrincipal = target.startsWith(OAUTH_PRINCIPAL_PREFIX) ? this.principals.byPrincipal(target) : null;
    const clientId = byPrincipal?.client_id ?? target;
    const grants = this.store.list('Grant');
    const clientGrants = grants.filter((g) => (g.payload as GrantPayload).clientId === clientId);
    const isClient = byPrincipal !== null || this.principals.get(clientId) !== null || this.store.find('Client', clientId) !== null || clientGrants.length > 0;
    let result: { principals: string[]; grants: string[]; tokens: number };
    const grantPrincipals: string[] = []; // the principal of a revoked grant's client
    if (isClient) {
      result = this.store.transaction(() => {
        let tokens = 0;
        for (const g of clientGrants) {
          tokens += this.store.revokeByGrantId(g.id);
          this.store.destroy('Grant', g.id);
        }
        const principal = this.principals.get(clientId)?.principal;
        this.principals.remove(clientId);
        return { principals: principal ? [principal] : [], grants: clientGrants.map((g) => g.id), tokens };
      });
    } else if (grants.some((g) => g.id === target)) {
      const grantClient = (grants.find((g) => g.id === target)!.payload as GrantPayload).clientId;
      const owner = grantClient !== undefined ? this.principals.get(grantClient)?.principal : undefined;
      if (owner) grantPrincipals.push(owner);
      result = this.store.transaction(() => {
        const tokens = this.store.revokeByGrantId(target);
        this.store.destroy('Grant', target);
        return { principals: [], grants: [target], tokens };
      });
    } else {
      throw new HoldfastError('BAD_REQUEST', `no OAuth client, principal or grant named ${JSON.stringify(target)}; \`holdfast oauth clients\` and \`holdfast oauth grants\` list them`);
    }
    this.log.info('oauth revoked', { target, ...result });
    this.auditLine({ event: 'oauth.revoked', target, ...result });
    this.notify({ revoked: { principals: result.principals.length > 0 ? result.principals : grantPrincipals } });
    return result;
  }

  private auditLine(entry: Record<string, unknown> & { event: string }): void {
    try {
      this.audit.append({ principal: 'owner', ...entry });
    } catch {
      // the daemon log has it
    }
  }
}
