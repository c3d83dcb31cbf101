/**
 * Migration 4 (issue 14): session roles between principals, and the OAuth authorization
 * server's state (docs/oauth.md, docs/sessions.md "Roles").
 *
 * - `session_roles`: the roles a session's owner granted to other principals (`viewer`,
 *   `editor`, `approver`); the owner itself is `sessions.principal`.
 * - `move_requests.principal`: who prepared a move (confirming another principal's needs the
 *   approver role); NULL for rows from before, read as the session owner.
 * - `oauth_store`: every model oidc-provider persists (RFC 7591 clients, grants, authorization
 *   codes, refresh tokens, interactions, sessions), one JSON payload per (model, id) with the
 *   secondary keys it is looked up by (grant id, session uid) and its expiry (epoch ms).
 * - `oauth_principals`: clients the owner approved, as principals `oauth:<name>`, with the tool
 *   set picked at consent.
 * - `oauth_keys`: signing-key metadata (the private keys are files under `<home>/oauth/keys`, 0600).
 * - `oauth_owner`: failed owner-password attempts and the lockout; `oauth_codes`: one-time
 *   approval codes (sha256 only).
 */
export const ROLES_OAUTH_MIGRATION = {
  version: 4,
  name: 'session roles and OAuth state',
  sql: `
    CREATE TABLE session_roles (
      session_id TEXT NOT NULL,
      principal  TEXT NOT NULL,
      role       TEXT NOT NULL,
      granted_by TEXT NOT NULL,
      granted_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, principal)
    ) WITHOUT ROWID;
    CREATE INDEX session_roles_principal ON session_roles(principal);

    ALTER TABLE move_requests ADD COLUMN principal TEXT;

    CREATE TABLE oauth_store (
      model       TEXT NOT NULL,
      id          TEXT NOT NULL,
      payload     TEXT NOT NULL,
      grant_id    TEXT,
      uid         TEXT,
      expires_at  INTEGER,
      consumed_at INTEGER,
      created_at  INTEGER NOT NULL,
      PRIMARY KEY (model, id)
    ) WITHOUT ROWID;
    CREATE INDEX oauth_store_grant ON oauth_store(grant_id) WHERE grant_id IS NOT NULL;
    CREATE INDEX oauth_store_uid ON oauth_store(uid) WHERE uid IS NOT NULL;
    CREATE INDEX oauth_store_expires ON oauth_store(expires_at) WHERE expires_at IS NOT NULL;

    CREATE TABLE oauth_principals (
      client_id    TEXT PRIMARY KEY,
      principal    TEXT NOT NULL UNIQUE,
      client_name  TEXT,
      tools        TEXT NOT NULL,
      tool_set     TEXT NOT NULL,
      redirect_uri TEXT,
      approved_at  INTEGER NOT NULL,
      approved_by  TEXT NOT NULL
    );

    CREATE TABLE oauth_keys (
      kid        TEXT PRIMARY KEY,
      alg        TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      retired_at INTEGER
    );

    CREATE TABLE oauth_owner (
      id              INTEGER PRIMARY KEY CHECK (id = 1),
      failures        INTEGER NOT NULL DEFAULT 0,
      locked_until    INTEGER NOT NULL DEFAULT 0,
      last_failure_at INTEGER
    );
    INSERT INTO oauth_owner (id) VALUES (1);

    CREATE TABLE oauth_codes (
      hash       TEXT PRIMARY KEY,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    ) WITHOUT ROWID;
  `,
} as const;
