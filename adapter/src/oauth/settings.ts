/**
 * Everything the OAuth front of one adapter needs (issue 14, docs/oauth.md), resolved from
 * `auth.oauth` in config.yaml and the serve flags.
 */
export interface OAuthSettings {
  /** The issuer: the public origin without a trailing slash (`https://holdfast.example.com`). */
  issuer: string;
  /** The MCP resource: `<issuer>/mcp` — the `resource` clients ask for and the tokens' audience. */
  resource: string;
  /** Scope a token needs for `/mcp`; the scope given when a client asks for none. */
  scope: string;
  accessTokenTtlS: number;
  refreshTokenTtlS: number;
  /** Take the client address from `X-Forwarded-For` (and, without a configured server_url, scheme and host from `X-Forwarded-Proto`/`-Host`). */
  trustProxyHeaders: boolean;
  /**
   * The issuer is a configured public origin (`server_url`): every URL the authorization server
   * builds uses its scheme and host, whatever `Host` the proxy forwarded.
   */
  pinOrigin: boolean;
  /** Test-only: fetch client id metadata documents from private and loopback addresses. */
  allowPrivateCimd: boolean;
  /** The tool sets the owner can pick at consent (`profile:<name>`, `principal:<name>`), first = preselected. */
  toolChoices: readonly ToolChoice[];
}

/** One option of the consent page's tool-set picker. */
export interface ToolChoice {
  /** `profile:coding`, `principal:ci`. */
  value: string;
  label: string;
  tools: readonly string[];
}

/** Paths of the authorization server (all under `/oauth/`; metadata under `/.well-known/`). */
export const OAuthRoutes = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  /** `/oauth/consent/<interaction uid>`: the owner's consent page. */
  consentPrefix: '/oauth/consent/',
} as const;

/** Lifetimes fixed by design (seconds); the configurable ones are in {@link OAuthSettings}. */
export const OAuthLifetimes = {
  /** An authorization code must be exchanged within this. */
  AUTHORIZATION_CODE_S: 60,
  /** A consent page left open longer than this must be started again. */
  INTERACTION_S: 600,
  /**
   * The owner's sign-in at the authorization server: within it, a client that already holds a
   * grant is re-authorized without a new proof; afterwards every authorization asks again.
   */
  SESSION_S: 600,
  /** A grant (the standing authorization a chain of refresh tokens hangs on) lasts at most this. */
  GRANT_S: 365 * 86400,
  ID_TOKEN_S: 3600,
} as const;
