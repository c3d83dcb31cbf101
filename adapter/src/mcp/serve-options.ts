import { isIPv4, isIPv6 } from 'node:net';
import type { Affinity } from '@holdfast/shared/control';
import type { HoldfastConfig, PanelModeSetting, ToolProfileName } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import type { HomeLayout } from '@holdfast/shared/paths';
import { PROFILES } from '@holdfast/shared/tools';
import { PrincipalNames } from './constants.js';
import type { ToolChoice } from '../oauth/settings.js';
import type { HttpServeConfig, OAuthServeOptions } from './http.js';
import { loadPrincipalsFile, makePrincipal, resolveToolSet, toolSetGap, type Principal } from './principals.js';
import { ensureGeneratedTokenFile, readTokenFile } from './token-file.js';

/**
 * Resolution of `holdfast serve` settings (DESIGN §6.2): command-line flags override
 * `config.yaml`, which overrides the defaults. Every refusal of DESIGN §6.2 that concerns
 * start-up happens here, before anything listens: a non-loopback bind without
 * `--allow-non-loopback`, `--auth open` off loopback, weak or unsafe tokens, unknown or empty
 * tool lists, and both `--token-file` and `--principal-config` at once.
 */

/** `holdfast serve` flags as commander parses them (all optional: absent = config value). */
export interface ServeFlags {
  http?: boolean;
  stdio?: boolean;
  bind?: string;
  tokenFile?: string;
  principalConfig?: string;
  allowedHost?: string[];
  allowNonLoopback?: boolean;
  allowWeakToken?: boolean;
  allowQueryToken?: boolean;
  maxConcurrency?: number;
  requestsPerMinute?: number;
  maxBodyBytes?: number;
  maxInflightBodyBytes?: number;
  requestTimeoutMs?: number;
  toolProfile?: ToolProfileName;
  allowTool?: string[];
  sessionAffinity?: Affinity;
  /** How desktop views reach the person (issue 16): `desktop.panel.mode` otherwise. */
  panel?: PanelModeSetting;
  auth?: 'bearer' | 'open' | 'oauth' | 'dual';
  /** `auth.oauth.server_url` (issue 14). */
  oauthServerUrl?: string;
  trustProxyHeaders?: boolean;
  /** Test-only: client metadata documents may be fetched from private and loopback addresses. */
  testOauthAllowPrivateCimd?: boolean;
  registerCwd?: boolean;
  /** `--name`: the workspace name the served folder is registered under (CLI only). */
  name?: string;
}

/** Everything `serve` needs, resolved. */
export interface ResolvedServe {
  mode: 'http' | 'stdio';
  /** Tools of the owner principal and of principals without their own setting. */
  defaultTools: string[];
  affinity: Affinity;
  requestTimeoutMs: number;
  /** Desktop panel mode (issue 16) and whether `serve` runs in a terminal (for `auto`). */
  panel: { mode: PanelModeSetting; terminal: boolean };
  /** The stdio principal (the machine owner). */
  stdioPrincipal: Principal;
  /** Largest stdio message (one line), bytes: `--max-body-bytes`, else `limits.max_body_bytes` (else -32600). */
  maxMessageBytes: number;
  /** HTTP settings (mode `http` only). */
  http: HttpServeConfig | null;
  /** The token file in use and whether it was generated now (bearer auth without a principals file). */
  tokenFile: { path: string; generated: boolean } | null;
  /** Warnings to print on stderr before serving. */
  warnings: string[];
}

/** Parses `HOST:PORT`, `[v6]:PORT`, `HOST` or `:PORT`. */
export function parseBind(value: string, defaults: { host: string; port: number }): { host: string; port: number } {
  let host = defaults.host;
  let port = defaults.port;
  let portText: string | undefined;
  const v = value.trim();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    if (end < 0) throw new HoldfastError('BAD_REQUEST', `--bind ${value}: missing "]"`);
    host = v.slice(1, end);
    const rest = v.slice(end + 1);
    if (rest.startsWith(':')) portText = rest.slice(1);
    else if (rest.length > 0) throw new HoldfastError('BAD_REQUEST', `--bind ${value}: expected [HOST]:PORT`);
  } else if (isIPv6(v)) {
    host = v;
  } else {
    const colon = v.lastIndexOf(':');
    if (colon >= 0) {
      if (colon > 0) host = v.slice(0, colon);
      portText = v.slice(colon + 1);
    } else if (v.length > 0) {
      host = v;
    }
  }
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new HoldfastError('BAD_REQUEST', `--bind ${value}: port must be 0-65535`);
    port = Number(portText);
  }
  return { host, port };
}

/** True for `localhost`, 127.0.0.0/8 and `::1` (the addresses only this machine can reach). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  if (isIPv4(h)) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}

/**
 * Resolves the settings of one `serve` run. Generates `<home>/token` (0600) when bearer auth has
 * no token configured.
 * @throws HoldfastError `BAD_REQUEST` for every start-up refusal.
 */
export function resolveServe(flags: ServeFlags, config: HoldfastConfig, layout: HomeLayout, env: NodeJS.ProcessEnv = process.env): ResolvedServe {
  if (flags.http && flags.stdio) throw new HoldfastError('BAD_REQUEST', 'choose one of --http or --stdio');
  const mode = flags.stdio ? 'stdio' : 'http';
  const warnings: string[] = [];

  const defaultTools =
    flags.allowTool !== undefined && flags.allowTool.length > 0
      ? resolveToolSet({ allowed: flags.allowTool }, '--allow-tool', [])
      : flags.toolProfile !== undefined
        ? resolveToolSet({ profile: flags.toolProfile }, '--tool-profile', [])
        : config.tools.allowed.length > 0
          ? resolveToolSet({ allowed: config.tools.allowed }, 'config.yaml tools.allowed', [])
          : resolveToolSet({ profile: config.tools.profile }, 'config.yaml tools.profile', []);
  const defaultsFrom = flags.allowTool !== undefined && flags.allowTool.length > 0 ? '--allow-tool' : flags.toolProfile !== undefined ? `--tool-profile ${flags.toolProfile}` : 'config.yaml tools';
  const gap = toolSetGap(defaultTools, defaultsFrom);
  if (gap !== null) warnings.push(gap);
  const affinity = flags.sessionAffinity ?? config.sessions.affinity;
  const requestTimeoutMs = flags.requestTimeoutMs ?? config.limits.request_timeout_ms;
  const owner = makePrincipal(PrincipalNames.OWNER, defaultTools, null);
  const panel = { mode: flags.panel ?? config.desktop.panel.mode, terminal: hasTerminal() };

  const maxMessageBytes = flags.maxBodyBytes ?? config.limits.max_body_bytes;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1) throw new HoldfastError('BAD_REQUEST', `maxBodyBytes must be a positive integer (got ${maxMessageBytes})`);
  if (mode === 'stdio') {
    return { mode, defaultTools, affinity, requestTimeoutMs, panel, stdioPrincipal: owner, maxMessageBytes, http: null, tokenFile: null, warnings };
  }

  const { host, port } = parseBind(flags.bind ?? '', { host: config.listen.bind, port: config.listen.port });
  const loopback = isLoopbackHost(host);
  const allowNonLoopback = flags.allowNonLoopback ?? config.listen.allow_non_loopback;
  if (!loopback && !allowNonLoopback) {
    throw new HoldfastError(
      'BAD_REQUEST',
      `refusing to listen on ${host}: it is reachable from other machines and holdfast hands out a shell. ` +
        'Bind 127.0.0.1 and put an HTTPS reverse proxy in front, or pass --allow-non-loopback if you really mean it.',
    );
  }
  const authMode = flags.auth ?? config.auth.mode;
  if (authMode === 'open' && !loopback) {
    throw new HoldfastError('BAD_REQUEST', `--auth open is for loopback testing only; refusing it on ${host}`);
  }
  const allowedHosts = [...config.listen.allowed_hosts, ...(flags.allowedHost ?? [])];
  // Clients that reach a specific non-loopback address send it as Host.
  // The bound address itself (a loopback bind other than 127.0.0.1, e.g. 127.0.0.2 or ::1, too).
  if (host !== '0.0.0.0' && host !== '::') allowedHosts.push(isIPv6(host) ? `[${host}]` : host);
  const limits = {
    maxBodyBytes: flags.maxBodyBytes ?? config.limits.max_body_bytes,
    maxInflightBodyBytes: flags.maxInflightBodyBytes ?? config.limits.max_inflight_body_bytes,
    requestTimeoutMs,
    maxConcurrency: flags.maxConcurrency ?? config.limits.max_concurrency,
    requestsPerMinute: flags.requestsPerMinute ?? config.limits.requests_per_minute,
  };
  for (const [k, v] of Object.entries(limits)) {
    if (!Number.isInteger(v) || v < 1) throw new HoldfastError('BAD_REQUEST', `${k} must be a positive integer (got ${v})`);
  }

  let auth: HttpServeConfig['auth'];
  let tokenFile: ResolvedServe['tokenFile'] = null;
  let oauth: OAuthServeOptions | null = null;
  if (authMode === 'open') {
    warnings.push(
      `WARNING: --auth open: no token is required. Anyone who can reach ${host}:${port} can run commands as ${env.USER ?? 'this user'}. Use this for local testing only.`,
    );
    auth = { mode: 'open', principal: owner };
  } else if (authMode === 'oauth') {
    auth = { mode: 'oauth' };
    if (flags.principalConfig !== undefined || flags.tokenFile !== undefined) {
      warnings.push('WARNING: --auth oauth accepts OAuth access tokens only; --principal-config/--token-file are ignored (use --auth dual to accept static tokens too).');
    }
  } else {
    const allowWeak = flags.allowWeakToken ?? config.auth.allow_weak_token;
    const allowQueryToken = flags.allowQueryToken ?? config.auth.allow_query_token;
    const principalConfig = flags.principalConfig ?? (flags.tokenFile === undefined ? config.auth.principal_config : undefined);
    const tokenPath = flags.tokenFile ?? (flags.principalConfig === undefined ? config.auth.token_file : undefined);
    if (principalConfig !== undefined && tokenPath !== undefined) {
      throw new HoldfastError('BAD_REQUEST', 'give either --token-file or --principal-config, not both (a principals file names each token itself)');
    }
    if (principalConfig !== undefined) {
      auth = { mode: authMode, principals: loadPrincipalsFile(principalConfig, defaultTools, { allowWeak, env }), allowQueryToken };
      for (const p of auth.principals) {
        const g = p.allowedTools.join() === defaultTools.join() ? null : toolSetGap(p.allowedTools, `principal "${p.name}"`);
        if (g !== null) warnings.push(g);
      }
    } else {
      const path = tokenPath ?? layout.token;
      const generated = tokenPath === undefined ? ensureGeneratedTokenFile(path) : false;
      const token = readTokenFile(path, { allowWeak });
      tokenFile = { path, generated };
      auth = { mode: authMode, principals: [makePrincipal(PrincipalNames.OWNER, defaultTools, token)], allowQueryToken };
    }
    if (allowWeak) warnings.push('WARNING: --allow-weak-token: tokens shorter than 32 bytes are accepted.');
    if (allowQueryToken) warnings.push('WARNING: --allow-query-token: ?token= is accepted; query strings end up in proxy logs and shell history.');
  }
  if (authMode === 'oauth' || authMode === 'dual') {
    oauth = resolveOAuth(flags, config, auth, defaultTools, warnings, loopback);
    // The public host the proxy forwards must pass the Host check.
    if (oauth.serverUrl !== null) allowedHosts.push(new URL(oauth.serverUrl).host);
  }
  if (!loopback) warnings.push(`WARNING: listening on non-loopback address ${host}; make sure only a TLS reverse proxy or trusted peers can reach it.`);

  return {
    mode,
    defaultTools,
    affinity,
    panel,
    requestTimeoutMs,
    stdioPrincipal: owner,
    maxMessageBytes,
    http: { host, port, allowedHosts, auth, oauth, ...limits },
    tokenFile,
    warnings,
  };
}

/** Profiles offered at consent, least first (DESIGN §6.4). */
const CONSENT_PROFILES = ['read-only', 'coding', 'terminal', 'full'] as const;

/**
 * The OAuth settings of `oauth`/`dual` (issue 14, docs/oauth.md). `server_url` must be an origin
 * (no path, query or fragment), `https:` unless its host is loopback; without it the issuer is the
 * loopback listen address, so a non-loopback bind needs it. The tool sets the owner can
 * pick at consent: the profiles, then each token principal's set ("same tools as principal X").
 * @throws HoldfastError BAD_REQUEST for a server_url that is not an https origin.
 */
function resolveOAuth(flags: ServeFlags, config: HoldfastConfig, auth: HttpServeConfig['auth'], defaultTools: readonly string[], warnings: string[], loopbackBind: boolean): OAuthServeOptions {
  const o = config.auth.oauth;
  const raw = flags.oauthServerUrl ?? o.server_url;
  let serverUrl: string | null = null;
  if (raw !== undefined) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new HoldfastError('BAD_REQUEST', `auth.oauth.server_url ${JSON.stringify(raw)} is not a URL`);
    }
    if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username || u.password) {
      throw new HoldfastError('BAD_REQUEST', `auth.oauth.server_url must be an origin like https://holdfast.example.com (no path, query or credentials); got ${raw}`);
    }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopbackHost(u.hostname))) {
      throw new HoldfastError('BAD_REQUEST', `auth.oauth.server_url must be https:// (OAuth 2.1 §1.5; only loopback may use http://); got ${raw}`);
    }
    serverUrl = u.origin;
  }
  const trustProxyHeaders = flags.trustProxyHeaders ?? o.trust_proxy_headers;
  if (serverUrl === null && !loopbackBind) {
    throw new HoldfastError('BAD_REQUEST', 'OAuth on a non-loopback bind needs auth.oauth.server_url (--oauth-server-url): the https:// origin clients reach this server at');
  }
  if (serverUrl === null) {
    warnings.push('auth.oauth.server_url is not set: OAuth metadata names the loopback address, so only clients on this machine can sign in. Set it to your public https:// URL (docs/oauth.md).');
  }
  const allowPrivateCimd = flags.testOauthAllowPrivateCimd === true;
  if (allowPrivateCimd) warnings.push('WARNING: --test-oauth-allow-private-cimd: client metadata documents are fetched from private and loopback addresses (tests only).');
  const toolChoices: ToolChoice[] = CONSENT_PROFILES.map((name) => ({ value: `profile:${name}`, label: `${name} profile`, tools: [...PROFILES[name]].sort() }));
  if (auth.mode === 'dual' || auth.mode === 'bearer') {
    for (const p of auth.principals) {
      if (p.name === PrincipalNames.OWNER && p.allowedTools.join() === [...defaultTools].join()) continue;
      toolChoices.push({ value: `principal:${p.name}`, label: `same tools as principal ${p.name}`, tools: p.allowedTools });
    }
  }
  return {
    serverUrl,
    scope: o.scope,
    accessTokenTtlS: o.access_token_ttl_s,
    refreshTokenTtlS: o.refresh_token_ttl_s,
    trustProxyHeaders,
    allowPrivateCimd,
    toolChoices,
  };
}

/**
 * Whether `serve` runs in a person's terminal (issue 16, panel mode `auto`): stdin or stderr is a
 * TTY (a stdio server's stdin and stdout are the client's pipes; its stderr often is the terminal).
 */
function hasTerminal(): boolean {
  return process.stdin.isTTY === true || process.stderr.isTTY === true;
}
