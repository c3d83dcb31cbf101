import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrate, openDatabase } from '../store/db.js';
import { MIGRATIONS } from '../store/migrations.js';
import { principalNameFor } from './principals.js';
import { OAuthStore, storedId, UNAPPROVED_CLIENT_TTL_MS } from './store.js';
import Database from 'better-sqlite3';

describe('OAuth storage (issue 14)', () => {
  const store = new OAuthStore(openDatabase(':memory:'));

  it('stores, expires, consumes and revokes by grant as oidc-provider expects', () => {
    const now = Date.now();
    store.upsert('Grant', 'g1', { clientId: 'c1', accountId: 'owner' }, 3600, now);
    store.upsert('RefreshToken', 'r1', { grantId: 'g1', clientId: 'c1' }, 3600, now);
    store.upsert('AuthorizationCode', 'a1', { grantId: 'g1' }, 60, now);
    store.upsert('Session', 's1', { uid: 'u1', accountId: 'owner' }, 600, now);
    assert.deepEqual(store.find('RefreshToken', 'r1', now), { grantId: 'g1', clientId: 'c1', jti: 'r1' }, 'jti comes back from the presented token');
    assert.equal(store.find('AuthorizationCode', 'a1', now + 61_000), null, 'expired reads as absent');
    assert.equal(store.findSessionByUid('u1', now)?.accountId, 'owner');
    store.consume('RefreshToken', 'r1', now);
    assert.equal(store.find('RefreshToken', 'r1', now)?.consumed, Math.floor(now / 1000));
    assert.equal(store.countForGrant('RefreshToken', 'g1', now), 0, 'a consumed token is not live');
    store.upsert('RefreshToken', 'r2', { grantId: 'g1' }, 3600, now);
    assert.equal(store.countForGrant('RefreshToken', 'g1', now), 1);
    assert.equal(store.revokeByGrantId('g1'), 3);
    assert.equal(store.find('RefreshToken', 'r2', now), null);
    assert.ok(store.find('Grant', 'g1', now), 'the grant row itself is destroyed separately');
    assert.equal(store.destroy('Grant', 'g1'), true);
  });

  it('keeps refresh tokens SHA-256 hashed at rest: no row holds the token, yet find/consume/destroy work with it', () => {
    const db = openDatabase(':memory:');
    const s = new OAuthStore(db);
    const token = 'RT-' + 'x'.repeat(40);
    s.upsert('RefreshToken', token, { jti: token, grantId: 'g1', clientId: 'c1' }, 3600);
    const rows = db.prepare('SELECT * FROM oauth_store').all() as Record<string, unknown>[];
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(token), `the raw token is stored: ${JSON.stringify(rows)}`);
    assert.match(String(rows[0]!.id), /^sha256:[0-9a-f]{64}$/);
    assert.equal(rows[0]!.id, storedId('RefreshToken', token));
    assert.deepEqual(s.find('RefreshToken', token), { grantId: 'g1', clientId: 'c1', jti: token });
    s.consume('RefreshToken', token);
    assert.equal(typeof s.find('RefreshToken', token)?.consumed, 'number');
    assert.equal(s.destroy('RefreshToken', token), true);
    assert.equal(s.find('RefreshToken', token), null);
  });

  it('migration 13 hashes the refresh tokens an older database holds', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    // Bring a database to version 11, as the previous release left it, with a raw refresh token.
    const v11 = MIGRATIONS.filter((m) => m.version <= 11);
    for (const m of v11) db.exec(m.sql);
    db.pragma('user_version = 11');
    const token = 'RT-old-' + 'y'.repeat(40);
    db.prepare("INSERT INTO oauth_store (model, id, payload, grant_id, uid, expires_at, consumed_at, created_at) VALUES ('RefreshToken', ?, ?, 'g1', NULL, NULL, NULL, 0)").run(token, JSON.stringify({ jti: token, grantId: 'g1' }));
    db.prepare("INSERT INTO oauth_store (model, id, payload, grant_id, uid, expires_at, consumed_at, created_at) VALUES ('Grant', 'g1', '{}', NULL, NULL, NULL, NULL, 0)").run();
    assert.equal(migrate(db), MIGRATIONS.length);
    assert.ok(!JSON.stringify(db.prepare('SELECT * FROM oauth_store').all()).includes(token), 'no raw token left');
    const s = new OAuthStore(db);
    assert.deepEqual(s.find('RefreshToken', token), { grantId: 'g1', jti: token }, 'the migrated token still works');
    assert.ok(s.find('Grant', 'g1'), 'other models keep their ids');
  });

  it('forgets dynamically registered clients nobody approved within a week', () => {
    const db = openDatabase(':memory:');
    const s = new OAuthStore(db);
    const t0 = Date.now() - UNAPPROVED_CLIENT_TTL_MS - 1000;
    s.upsert('Client', 'stale', { client_id: 'stale' }, undefined, t0);
    s.upsert('Client', 'kept', { client_id: 'kept' }, undefined, t0);
    db.prepare("INSERT INTO oauth_principals (client_id, principal, tools, tool_set, approved_at, approved_by) VALUES ('kept', 'oauth:kept-000000', '[]', 'profile:read-only', 0, 'code')").run();
    s.upsert('Client', 'fresh', { client_id: 'fresh' }, undefined);
    assert.equal(s.find('Client', 'stale'), null);
    assert.ok(s.find('Client', 'kept'));
    assert.ok(s.find('Client', 'fresh'));
  });

  it('names client principals oauth:<name>-<hash>', () => {
    assert.match(principalNameFor('https://claude.ai/oauth/client.json', 'Claude'), /^oauth:claude-[0-9a-f]{6}$/);
    assert.match(principalNameFor('https://chatgpt.com/cimd.json', undefined), /^oauth:chatgpt\.com-[0-9a-f]{6}$/);
    assert.match(principalNameFor('abc', '  <script>  '), /^oauth:script-[0-9a-f]{6}$/);
    assert.notEqual(principalNameFor('a', 'Same'), principalNameFor('b', 'Same'));
  });
});
