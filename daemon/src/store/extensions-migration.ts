/**
 * Migration 4 (issue 13): extensions — skills and upstream MCP servers.
 *
 * - `mcp_approvals`: a workspace `.mcp.json` server the user approved with `holdfast mcp approve`,
 *   bound to the sha256 of the entry as written (a changed entry needs approval again).
 * - `extension_describes`: the revision a session last saw with `describe` (a skill folder's
 *   hash, an upstream tool's schema revision), so `call` can answer `*_REVISION_CHANGED`.
 * - `extension_confirmations`: `waiting_confirmation` of an executable skill or an upstream tool
 *   call, bound to the target, its revision, the sha256 of the arguments and the purpose (never
 *   the arguments themselves: they may hold secrets); used once, before `expires_at`.
 */
export const EXTENSIONS_MIGRATION = {
  version: 6,
  name: 'extensions: MCP approvals, describes, confirmations',
  sql: `
    CREATE TABLE mcp_approvals (
      workspace_root TEXT NOT NULL,
      name           TEXT NOT NULL,
      entry_sha256   TEXT NOT NULL,
      approved_at    INTEGER NOT NULL,
      PRIMARY KEY (workspace_root, name)
    ) WITHOUT ROWID;

    CREATE TABLE extension_describes (
      session_id   TEXT NOT NULL,
      -- skill | mcp
      kind         TEXT NOT NULL,
      -- skill name, or server/tool
      target       TEXT NOT NULL,
      revision     TEXT NOT NULL,
      described_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, kind, target)
    ) WITHOUT ROWID;

    CREATE TABLE extension_confirmations (
      id          TEXT PRIMARY KEY,
      session_id  TEXT NOT NULL,
      principal   TEXT NOT NULL,
      kind        TEXT NOT NULL,
      target      TEXT NOT NULL,
      revision    TEXT NOT NULL,
      args_sha256 TEXT NOT NULL,
      purpose     TEXT,
      -- sha256 over kind, target, revision, args_sha256 and purpose
      fingerprint TEXT NOT NULL,
      summary     TEXT NOT NULL,
      -- pending | used
      state       TEXT NOT NULL,
      created_at  INTEGER NOT NULL,
      expires_at  INTEGER NOT NULL,
      used_at     INTEGER
    );
    CREATE INDEX extension_confirmations_lookup ON extension_confirmations(session_id, fingerprint, state);
  `,
};
