import type { Adapter, AdapterPayload } from 'oidc-provider';
import { OAuthModelName } from '@holdfast/shared/control';
import type { OAuthBackend } from './backend.js';

/**
 * oidc-provider's storage adapter (its `adapter` option; one instance per model name) over the
 * daemon's control socket: every upsert, find, consume and revocation is one `oauth.store.*`
 * call, so the adapter process holds no grant, code, refresh token, registered client or
 * interaction — `kill -9` of it loses nothing (issue 14, docs/oauth.md "Where state lives").
 * `findByUserCode` (device flow) is never needed: that grant is not enabled.
 */
export class DaemonStorageAdapter implements Adapter {
  private readonly model: OAuthModelName;

  constructor(
    name: string,
    private readonly backend: OAuthBackend,
  ) {
    this.model = OAuthModelName.parse(name);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    await this.backend.call('oauth.store.upsert', { model: this.model, id, payload: payload as Record<string, unknown>, ...(expiresIn !== undefined ? { expires_in_s: Math.ceil(expiresIn) } : {}) });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const r = await this.backend.call('oauth.store.find', { model: this.model, id });
    return (r.payload ?? undefined) as AdapterPayload | undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const r = await this.backend.call('oauth.store.find_by_uid', { uid });
    return (r.payload ?? undefined) as AdapterPayload | undefined;
  }

  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  async consume(id: string): Promise<void> {
    await this.backend.call('oauth.store.consume', { model: this.model, id });
  }

  async destroy(id: string): Promise<void> {
    await this.backend.call('oauth.store.destroy', { model: this.model, id });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.backend.call('oauth.store.revoke_grant', { grant_id: grantId });
  }
}
