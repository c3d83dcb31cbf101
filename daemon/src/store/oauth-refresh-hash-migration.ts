/**
 * Migration 13: OAuth refresh tokens are kept SHA-256 hashed at rest (fresh-user review). Until
 * now a `RefreshToken` row of `oauth_store` had the token itself as its id and again as the
 * payload's `jti`, so a copy of `state/holdfast.db` was a working credential for as long as the
 * grant lived. Existing rows get the hashed id (`sha256:<hex>`, daemon/src/oauth/store.ts
 * `storedId`) and lose `jti` (the store puts it back from the presented token on lookup). Uses
 * the `holdfast_sha256` SQL function that `migrate()` registers on the connection.
 */
export const OAUTH_REFRESH_HASH_MIGRATION = {
  version: 13,
  name: 'oauth: refresh tokens hashed at rest',
  sql: `
    UPDATE oauth_store
       SET id = 'sha256:' || holdfast_sha256(id),
           payload = json_remove(payload, '$.jti')
     WHERE model = 'RefreshToken' AND id NOT LIKE 'sha256:%';
  `,
} as const;
