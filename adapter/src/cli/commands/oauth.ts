import type { Command } from 'commander';
import { HoldfastError } from '@holdfast/shared/errors';
import type { DaemonClient } from '../../daemon-client.js';
import { printJson, table, withClient } from '../client.js';
import { promptHidden } from '../hidden-input.js';

const DAEMON = { autoStart: true, giveUpMs: 15_000 } as const;

/** A subcommand that asks the daemon once and prints the answer as text, or as JSON with `--json`. */
function listing<R>(parent: Command, spec: string, description: string, ask: (c: DaemonClient, arg?: string) => Promise<R>, text: (r: R) => string): void {
  parent
    .command(spec)
    .description(description)
    .option('--json', 'print JSON')
    .action(async (...args: unknown[]) => {
      const arg = typeof args[0] === 'string' ? args[0] : undefined;
      const opts = (arg === undefined ? args[0] : args[1]) as { json?: boolean };
      await withClient(async (c) => {
        const r = await ask(c, arg);
        if (opts.json) printJson(r);
        else process.stdout.write(text(r));
      }, DAEMON);
    });
}

function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The new password: asked twice on a terminal, else the first line of stdin. */
async function readNewPassword(): Promise<string> {
  if (process.stdin.isTTY) {
    const a = await promptHidden('New owner password (at least 12 characters): ');
    const b = await promptHidden('Again: ');
    if (a !== b) throw new HoldfastError('BAD_REQUEST', 'the two passwords differ; nothing was changed');
    return a;
  }
  let text = '';
  for await (const chunk of process.stdin) text += (chunk as Buffer).toString('utf8');
  return text.split(/\r?\n/)[0] ?? '';
}

/**
 * `holdfast oauth …` (issue 14, docs/oauth.md): the owner's side of holdfast's authorization
 * server — the password that approves clients, one-time approval codes, the approved clients and
 * their grants, revocation, and signing-key rotation. Everything is kept by the daemon.
 */
export function registerOAuth(program: Command): void {
  const o = program.command('oauth').description('OAuth clients of `serve --auth oauth|dual`: approve, list, revoke, keys');
  o.command('set-password')
    .description('set the owner password that approves OAuth clients at the consent page (read from the terminal, or the first line of stdin)')
    .action(async () => {
      const password = await readNewPassword();
      if (password.length < 12) throw new HoldfastError('BAD_REQUEST', 'the owner password needs at least 12 characters');
      await withClient(async (c) => {
        const r = await c.call('oauth.password.set', { password });
        process.stdout.write(`owner password ${r.replaced ? 'replaced' : 'set'} (scrypt hash in <home>/oauth/owner-password, 0600)\n`);
      }, DAEMON);
    });
  listing(o, 'approve', 'print a one-time code that approves one client at the consent page (and the requests waiting)', (c) => c.call('oauth.approval_code', {}), (r) => {
    const pending = r.pending.length === 0 ? 'no authorization request is waiting right now\n' : table(['CLIENT', 'REDIRECT', 'SCOPE'], r.pending.map((p) => [p.client_id, p.redirect_uri ?? '-', p.scope ?? '-']));
    return `${pending}one-time approval code: ${r.code} (single use, valid until ${when(r.expires_at)})\n`;
  });
  listing(o, 'clients', 'list OAuth clients: registered ones and approved ones, with their principal and tools', async (c) => (await c.call('oauth.clients', {})).clients, (clients) =>
    table(
      ['CLIENT', 'NAME', 'REGISTRATION', 'PRINCIPAL', 'TOOLS', 'APPROVED'],
      clients.map((x) => [x.client_id, x.client_name ?? '-', x.registration, x.principal?.principal ?? '(not approved)', x.principal?.tool_set ?? '-', when(x.principal?.approved_at ?? null)]),
    ),
  );
  listing(o, 'grants', 'list live grants (standing authorizations) and their refresh tokens', async (c) => (await c.call('oauth.grants', {})).grants, (grants) =>
    table(['GRANT', 'CLIENT', 'PRINCIPAL', 'SCOPE', 'REFRESH', 'EXPIRES'], grants.map((g) => [g.grant_id, g.client_id, g.principal ?? '-', g.scope, String(g.refresh_tokens), when(g.expires_at)])),
  );
  listing(o, 'revoke <target>', 'revoke a client (client id or principal oauth:…: approval, grants, tokens) or one grant (grant id)', (c, target) => c.call('oauth.revoke', { target: target! }), (r) =>
    `revoked: ${r.principals.length ? `principal ${r.principals.join(', ')}; ` : ''}${r.grants.length} grant(s), ${r.tokens} token(s) and code(s); issued access tokens stop working now\n`,
  );
  listing(o, 'rotate-keys', 'start signing with a new key; old keys verify until the tokens they signed expire', (c) => c.call('oauth.keys.rotate', {}), (r) =>
    `signing key ${r.kid}; retired ${r.retired.join(', ') || '-'}; removed ${r.removed.join(', ') || '-'}\n`,
  );
}
