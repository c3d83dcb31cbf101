import type { ControlMethod, ControlParams, ControlResult, OAuthPrincipalView } from '@holdfast/shared/control';
import { generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * Baseline of the OAuth bench: the same authorization server (holdfast's oidc-provider setup) with
 * its storage in this process's memory instead of the daemon's SQLite over the control socket, and
 * every consent approved — so the ratio is the cost of keeping the adapter stateless.
 */
export function memoryOAuthBackend(): { call<M extends ControlMethod>(m: M, p: ControlParams<M>): Promise<ControlResult<M>> } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'bench', alg: 'RS256', use: 'sig' };
  const store = new Map<string, { payload: Record<string, unknown>; grantId?: string | undefined; uid?: string | undefined }>();
  const approved = new Map<string, OAuthPrincipalView>();
  const cookie = randomBytes(32).toString('base64url');
  const handlers: Record<string, (p: Record<string, unknown>) => unknown> = {
    'oauth.keys': () => ({ keys: [jwk], cookie_keys: [cookie] }),
    'oauth.store.upsert': (p) => {
      const payload = p.payload as Record<string, unknown>;
      store.set(`${String(p.model)}:${String(p.id)}`, { payload, grantId: payload.grantId as string | undefined, uid: payload.uid as string | undefined });
      return {};
    },
    'oauth.store.find': (p) => ({ payload: store.get(`${String(p.model)}:${String(p.id)}`)?.payload ?? null }),
    'oauth.store.find_by_uid': (p) => ({ payload: [...store.entries()].find(([k, v]) => k.startsWith('Session:') && v.uid === p.uid)?.[1].payload ?? null }),
    'oauth.store.consume': (p) => {
      const e = store.get(`${String(p.model)}:${String(p.id)}`);
      if (e) e.payload.consumed = Math.floor(Date.now() / 1000);
      return {};
    },
    'oauth.store.destroy': (p) => (store.delete(`${String(p.model)}:${String(p.id)}`), {}),
    'oauth.store.revoke_grant': (p) => {
      let removed = 0;
      for (const [k, v] of store) if (v.grantId === p.grant_id && !k.startsWith('Grant:')) removed += store.delete(k) ? 1 : 0;
      return { removed };
    },
    'oauth.owner.status': () => ({ password_set: false, locked_until: null }),
    'oauth.principal.get': (p) => ({ principal: approved.get(String(p.client_id)) ?? null }),
    'oauth.consent.approve': (p) => {
      const v: OAuthPrincipalView = { client_id: String(p.client_id), principal: 'oauth:bench', client_name: null, tools: p.tools as string[], tool_set: String(p.tool_set), approved_at: Date.now(), approved_by: 'code' };
      approved.set(v.client_id, v);
      return { ok: true, principal: v.principal };
    },
  };
  return {
    call<M extends ControlMethod>(m: M, p: ControlParams<M>): Promise<ControlResult<M>> {
      const h = handlers[m];
      if (!h) return Promise.reject(new Error(`baseline backend: ${m} not served`));
      return Promise.resolve(h(p as Record<string, unknown>) as ControlResult<M>);
    },
  };
}
