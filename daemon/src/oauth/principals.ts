import { createHash } from 'node:crypto';
import type { OAuthPrincipalView } from '@holdfast/shared/control';
import type { Db } from '../store/db.js';

interface Row {
  client_id: string;
  principal: string;
  client_name: string | null;
  tools: string;
  tool_set: string;
  redirect_uri: string | null;
  approved_at: number;
  approved_by: string;
}

/** Prefix of every OAuth client principal (issue 14); token principals cannot contain `:`. */
export const OAUTH_PRINCIPAL_PREFIX = 'oauth:';

/**
 * The principal name of a client: `oauth:<name>-<6 hex of sha256(client_id)>`, where `<name>`
 * is its `client_name` (or its client-id URL's host) folded to lower-case letters, digits, `.`
 * and `-` (at most 32). Readable in `holdfast oauth clients`, in the usage log and in
 * `session(action="grant", principal=…)`; the hash keeps two clients of one name apart.
 */
export function principalNameFor(clientId: string, clientName: string | null | undefined): string {
  let base = clientName ?? '';
  if (!base) {
    try {
      base = new URL(clientId).hostname;
    } catch {
      base = 'client';
    }
  }
  const slug = base.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 32) || 'client';
  return `${OAUTH_PRINCIPAL_PREFIX}${slug}-${createHash('sha256').update(clientId).digest('hex').slice(0, 6)}`;
}

function view(r: Row): OAuthPrincipalView {
  return {
    client_id: r.client_id,
    principal: r.principal,
    client_name: r.client_name,
    tools: JSON.parse(r.tools) as string[],
    tool_set: r.tool_set,
    approved_at: r.approved_at,
    approved_by: r.approved_by,
  };
}

/** Repository of `oauth_principals`: the clients the owner approved, and what they may call. */
export class OAuthPrincipals {
  constructor(private readonly db: Db) {}

  get(clientId: string): OAuthPrincipalView | null {
    const r = this.db.prepare<[string], Row>('SELECT * FROM oauth_principals WHERE client_id = ?').get(clientId);
    return r ? view(r) : null;
  }

  byPrincipal(name: string): OAuthPrincipalView | null {
    const r = this.db.prepare<[string], Row>('SELECT * FROM oauth_principals WHERE principal = ?').get(name);
    return r ? view(r) : null;
  }

  list(): OAuthPrincipalView[] {
    return this.db.prepare<[], Row>('SELECT * FROM oauth_principals ORDER BY approved_at').all().map(view);
  }

  /** Records an approval (the client keeps its principal name when approved again). @returns the principal. */
  approve(a: { client_id: string; client_name?: string | undefined; tools: readonly string[]; tool_set: string; redirect_uri: string; by: string }, now = Date.now()): string {
    const existing = this.get(a.client_id);
    const principal = existing?.principal ?? principalNameFor(a.client_id, a.client_name);
    this.db
      .prepare(
        `INSERT INTO oauth_principals (client_id, principal, client_name, tools, tool_set, redirect_uri, approved_at, approved_by)
         VALUES (@client_id, @principal, @client_name, @tools, @tool_set, @redirect_uri, @now, @by)
         ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name, tools = excluded.tools, tool_set = excluded.tool_set,
           redirect_uri = excluded.redirect_uri, approved_at = excluded.approved_at, approved_by = excluded.approved_by`,
      )
      .run({ client_id: a.client_id, principal, client_name: a.client_name ?? null, tools: JSON.stringify([...a.tools]), tool_set: a.tool_set, redirect_uri: a.redirect_uri, now, by: a.by });
    return principal;
  }

  /** Forgets an approval. @returns whether there was one. */
  remove(clientId: string): boolean {
    return this.db.prepare('DELETE FROM oauth_principals WHERE client_id = ?').run(clientId).changes === 1;
  }
}
