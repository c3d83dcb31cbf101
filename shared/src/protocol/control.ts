import * as z from 'zod';
import { PanelModeSetting, SandboxSettings } from '../config/schema.js';
import { SecretLimits } from '../constants.js';
import { SECRET_NAME_RE } from './guardian.js';

/**
 * The control protocol (adapter/CLI ↔ daemon, DESIGN §3): one zod schema per method for params
 * and result. The daemon parses every inbound request with these at its boundary; TypeScript
 * types come from `z.infer`, so the schema is the only source of truth. Since proto 1.
 */

export const SessionState = z.enum(['starting', 'running', 'exited', 'lost', 'closed']);
export type SessionState = z.infer<typeof SessionState>;

export const Affinity = z.enum(['workspace', 'conversation', 'thread']);
export type Affinity = z.infer<typeof Affinity>;

/** A session as the daemon reports it (DESIGN §4). Times are epoch ms. */
export const SessionView = z.object({
  remote_session_id: z.string(),
  principal: z.string(),
  workspace: z.string(),
  workspace_root: z.string(),
  affinity: Affinity,
  state: SessionState,
  guardian_pid: z.number().nullable(),
  shell_pid: z.number().nullable(),
  created_at: z.number(),
  last_activity_at: z.number(),
  ever_executed: z.boolean(),
  busy: z.boolean(),
  /** The shell has shown its first prompt (commands can run). */
  shell_ready: z.boolean(),
  /**
   * The user's rc files were skipped (issue 9): why, the file to look at, and what the shell loaded
   * instead (`login`: /etc/profile and ~/.profile; `none`: nothing). Null when they loaded.
   */
  rc_skipped: z
    .object({ reason: z.enum(['timeout', 'input', 'replaced', 'exited']), file: z.string().nullable(), detail: z.string(), loaded: z.enum(['login', 'none']) })
    .nullable()
    .optional(),
  /** Seconds since the last activity (PTY output or instruction). */
  idle_seconds: z.number(),
  /** Idle TTL of the session's tier, seconds. */
  ttl_seconds: z.number(),
  pty_end: z.number(),
  exit_code: z.number().nullable(),
  exit_signal: z.string().nullable(),
  ended_at: z.number().nullable(),
  end_reason: z.string().nullable(),
  /** The sandbox the shell runs under (issue 17): `off`, `bwrap` or `landlock`, and its network. */
  sandbox: z.object({ mode: z.enum(['off', 'bwrap', 'landlock']), network: z.enum(['on', 'off']) }).optional(),
});
export type SessionView = z.infer<typeof SessionView>;

export const WorkspaceView = z.object({
  name: z.string(),
  path: z.string(),
  description: z.string(),
  available: z.boolean(),
});
export type WorkspaceView = z.infer<typeof WorkspaceView>;

const Id = z.string().min(1).max(200);

/** Output read result on the control socket (same shape as the guardian's, DESIGN §3). */
export const ReadResultSchema = z.object({
  data: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'expected bytes'),
  offset: z.number(),
  next: z.number(),
  gap: z.boolean(),
  end: z.number(),
  exited: z.boolean(),
  exit_code: z.number().nullable(),
});

export const CommandRecordSchema = z.object({
  kind: z.literal('command'),
  id: z.string(),
  command: z.string(),
  state: z.enum(['running', 'exited']),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  exitCode: z.number().optional(),
  outputStart: z.number(),
  outputEnd: z.number().optional(),
  awaitingInput: z.boolean().optional(),
});

/** Context the adapter passes with every tool call (never the bearer token). */
export const CallContext = z.object({
  principal: z.string().min(1),
  /** Tools this principal may call (profile or allowed_tools, DESIGN §6.2). */
  allowed_tools: z.array(z.string()),
  /** Transport session (`Mcp-Session-Id`), if the client has one. */
  mcp_session_id: z.string().optional(),
  /** `X-Holdfast-Conversation-Id` header, if sent. */
  conversation_header: z.string().optional(),
  /**
   * The conversation this call belongs to, for per-conversation state such as what was read
   * (issue 8): the `X-Holdfast-Conversation-Id` header, else the transport session
   * (`Mcp-Session-Id`), else one id per stdio connection; absent when the client names none
   * (a 2026-07-28 request without the header). Affinity keys its own way (session tool).
   */
  conversation_id: z.string().max(200).optional(),
  /**
   * The longest one wait inside this call may last, ms (issue 8): set by the adapter when the
   * request carries no progress token, because such clients give up after 60 s (SDK v1 default);
   * `execute` then answers `accepted` with its task id instead of waiting longer.
   */
  wait_cap_ms: z.number().int().min(0).optional(),
  /** Default affinity configured on the adapter. */
  affinity: Affinity.optional(),
  /** JSON-RPC request id, for the usage log and audit. */
  request_id: z.string().optional(),
  /** Protocol era of the client (`legacy` 2025-11-25 or `modern` 2026-07-28) or `stdio`. */
  transport: z.string().optional(),
  /**
   * The principal's own sandbox keys (issue 17), whatever kind of principal it is; the daemon
   * lays them over `security.sandbox` when it opens a session.
   */
  sandbox: SandboxSettings.optional(),
  /**
   * Set when the client asked for progress (its request carried a `progressToken`): the daemon
   * may then emit {@link ControlEvents.toolProgress} events with this id while the call runs, and
   * the adapter forwards them as `notifications/progress` (issue 13).
   */
  progress_id: z.string().min(1).max(100).optional(),
  /**
   * How this client's desktop views reach the person (issue 16; `holdfast serve --panel`): the
   * adapter's mode, whether the client declared the MCP Apps UI extension
   * (`text/html;profile=mcp-app`), and whether the adapter runs with a terminal. The daemon
   * resolves `auto` (docs/desktop.md).
   */
  panel: z.object({ mode: PanelModeSetting, apps: z.boolean(), terminal: z.boolean() }).optional(),
  /**
   * URL-mode elicitation (MCP 2025-11-25, issue 12): `url` is true when the client declared the
   * capability (`secret_provide` may then open a loopback page and return its URL in
   * `_meta["holdfast/elicitation"]`, which the adapter turns into an elicitation and never shows
   * the model); `response` is the user's answer when the adapter re-runs the call after it.
   */
  elicitation: z.object({ url: z.boolean(), response: z.enum(['accept', 'decline', 'cancel']).optional() }).optional(),
});
export type CallContext = z.infer<typeof CallContext>;

/**
 * MCP content block as the daemon produces it (text, image, resource_link; embedded `resource`
 * for skill files) or passes through from an upstream server (also `audio`; any block may carry
 * `annotations` and `_meta`, kept as they came — issue 13).
 */
export const ContentBlock = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
  z.looseObject({ type: z.literal('audio'), data: z.string(), mimeType: z.string() }),
  z.looseObject({ type: z.literal('resource_link'), uri: z.string(), name: z.string(), mimeType: z.string().optional(), description: z.string().optional() }),
  z.looseObject({
    type: z.literal('resource'),
    resource: z.looseObject({ uri: z.string(), mimeType: z.string().optional(), text: z.string().optional(), blob: z.string().optional() }),
  }),
]);

/**
 * A finished tool call: MCP `CallToolResult` fields. `structuredContent` is the §6.3 envelope of
 * holdfast's own tools; a pass-through result (`mcp_tool` call, issue 13) carries the upstream's
 * (possibly none) and the envelope in `_meta["holdfast/envelope"]`.
 * A finished tool call: MCP `CallToolResult` fields. `_meta` carries what is about the call rather
 * than its result — the stored activity snapshot under `holdfast/activity` (issue 11) — and is
 * never mirrored in `structuredContent`.
 */
export const ToolCallResult = z.object({
  content: z.array(ContentBlock),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});
export type ToolCallResult = z.infer<typeof ToolCallResult>;

const Empty = z.object({}).strict();

/** A device of the person's book as the CLI shows it (issue 15; never a password). */
export const DeviceView = z.object({
  alias: z.string(),
  host: z.string(),
  port: z.number(),
  credential: z.string(),
  authorization: z.enum(['view', 'control']),
  auto_connect: z.boolean(),
  paused: z.boolean(),
  /** The agent connection holding the device, if any. */
  desktop_session_id: z.string().nullable(),
  remote_session_id: z.string().nullable(),
  updated_at: z.number(),
});
export type DeviceView = z.infer<typeof DeviceView>;

/** An open desktop session as the CLI lists it (issue 15). */
export const DesktopSessionListing = z.object({
  desktop_session_id: z.string(),
  remote_session_id: z.string(),
  principal: z.string(),
  device: z.string(),
  paused: z.boolean(),
  created_at: z.number(),
  state: z.string(),
});

/** A device alias: letters, digits, `.`, `_`, `-` (`virtual` is the private display, not a device). */
export const DeviceAlias = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, . _ - (at most 64)')
  .refine((a) => a !== 'virtual', '"virtual" names the private display; pick another alias');

/**
 * MCP resources the daemon serves (issue 5: execution task logs at
 * `holdfast://remote-sessions/{remote_session_id}/tasks/{execution_task_id}/logs`). The adapter
 * answers `resources/templates/list`, `resources/list` and `resources/read` with these methods;
 * `resource.read` of a URI that is unknown or not the principal's fails with `SESSION_NOT_FOUND`,
 * `TASK_NOT_FOUND` or `BAD_REQUEST` (the adapter maps them to the SEP-2164 -32602 error).
 */
export const ResourceTemplateView = z.object({ uriTemplate: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() });
export const ResourceView = z.object({ uri: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() });
/** One resource body: text, or base64 bytes (`blob`) for binary artifacts (issue 11). */
export const ResourceContents = z.union([
  // `_meta` carries the MCP Apps UI metadata of `ui://holdfast/desktop.html` (issue 16: csp, prefersBorder).
  z.object({ uri: z.string(), mimeType: z.string(), text: z.string(), _meta: z.record(z.string(), z.unknown()).optional() }),
  z.object({ uri: z.string(), mimeType: z.string(), blob: z.string() }),
]);

/**
 * OAuth storage and administration (issue 14, docs/oauth.md). The adapter runs the authorization
 * server (oidc-provider) but keeps nothing: every model oidc-provider stores (clients registered
 * by RFC 7591, grants, authorization codes, refresh tokens, interactions, sessions) is one row of
 * the daemon's `oauth_store`, reached through `oauth.store.*`; signing keys come from
 * `oauth.keys`; the owner's proof at consent is checked by `oauth.consent.approve`.
 */
export const OAuthModelName = z.enum([
  'Session', 'AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'ClientCredentials', 'Client', 'InitialAccessToken',
  'RegistrationAccessToken', 'Interaction', 'ReplayDetection', 'PushedAuthorizationRequest', 'Grant', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode',
]);
export type OAuthModelName = z.infer<typeof OAuthModelName>;
const OAuthPayload = z.record(z.string(), z.unknown());
const OAuthId = z.string().min(1).max(2048);

/** An approved OAuth client as a principal (`oauth:<name>`) with the tool set the owner picked. */
export const OAuthPrincipalView = z.object({
  client_id: z.string(),
  principal: z.string(),
  client_name: z.string().nullable(),
  tools: z.array(z.string()),
  /** What the owner picked: `profile:<name>` or `principal:<name>`. */
  tool_set: z.string(),
  approved_at: z.number(),
  /** `password` or `code`. */
  approved_by: z.string(),
});
export type OAuthPrincipalView = z.infer<typeof OAuthPrincipalView>;

/** A grant (one client's standing authorization) as `holdfast oauth grants` lists it. Times epoch ms. */
export const OAuthGrantView = z.object({
  grant_id: z.string(),
  client_id: z.string(),
  principal: z.string().nullable(),
  scope: z.string(),
  resources: z.array(z.string()),
  created_at: z.number(),
  expires_at: z.number().nullable(),
  refresh_tokens: z.number(),
});

/** Doctor check: one line of the report. */
export const DoctorCheck = z.object({
  name: z.string(),
  ok: z.boolean(),
  /** Not a failure, but something to look at (issue 9: rc files that were skipped). */
  warn: z.boolean().optional(),
  detail: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

/** The method catalogue: name → {params, result}. */
export const ControlMethods = {
  'daemon.status': {
    params: Empty,
    result: z.object({
      pid: z.number(),
      build: z.string(),
      version: z.string(),
      started_at: z.number(),
      draining: z.boolean(),
      home: z.string(),
      socket: z.string(),
      proto: z.number(),
      guardian_protos: z.array(z.number()),
      sessions: z.object({ live: z.number(), total: z.number(), max_live: z.number() }),
    }),
  },
  'daemon.doctor': { params: Empty, result: z.object({ checks: z.array(DoctorCheck) }) },
  'daemon.restart': { params: Empty, result: z.object({ successor_pid: z.number() }) },
  'daemon.stop': { params: z.object({ kill_sessions: z.boolean().default(false) }), result: z.object({ stopping: z.boolean() }) },

  'workspace.list': { params: Empty, result: z.object({ workspaces: z.array(WorkspaceView) }) },
  'workspace.register': {
    params: z.object({ path: z.string().min(1), name: z.string().min(1).max(64).optional(), description: z.string().max(500).optional() }),
    result: z.object({ workspace: WorkspaceView, created: z.boolean() }),
  },
  /** Unregisters a workspace by name (its folder is untouched); refused while a live session uses it. */
  'workspace.remove': { params: z.object({ name: z.string().min(1).max(64) }), result: z.object({ workspace: WorkspaceView }) },

  'session.open': {
    params: z.object({
      principal: z.string().min(1),
      workspace: z.string().optional(),
      remote_session_id: Id.optional(),
      affinity: Affinity.default('workspace'),
      conversation_id: z.string().max(200).optional(),
  /**
   * The longest one wait inside this call may last, ms (issue 8): set by the adapter when the
   * request carries no progress token, because such clients give up after 60 s (SDK v1 default);
   * `execute` then answers `accepted` with its task id instead of waiting longer.
   */
  wait_cap_ms: z.number().int().min(0).optional(),
    }),
    result: z.object({ session: SessionView, created: z.boolean() }),
  },
  'session.list': { params: z.object({ all: z.boolean().default(false) }), result: z.object({ sessions: z.array(SessionView) }) },
  'session.get': { params: z.object({ id: Id }), result: z.object({ session: SessionView }) },
  'session.kill': {
    params: z.object({ id: Id.optional(), all: z.boolean().default(false) }).refine((p) => p.all !== (p.id !== undefined), 'give exactly one of id or all'),
    result: z.object({ killed: z.array(z.string()) }),
  },
  'session.prune': {
    params: z.object({ idle_seconds: z.number().int().min(0).optional() }),
    result: z.object({ pruned: z.array(z.string()), kept_busy: z.array(z.string()) }),
  },
  'session.read': {
    params: z.object({ id: Id, from: z.number().int().min(0), max: z.number().int().min(1).max(4 * 1024 * 1024).default(65536), wait_ms: z.number().int().min(0).max(120000).default(0) }),
    result: ReadResultSchema,
  },
  'session.snapshot': {
    params: z.object({ id: Id }),
    result: z.object({ cols: z.number(), rows: z.number(), lines: z.array(z.string()), ansi: z.string(), cursor: z.object({ x: z.number(), y: z.number() }), offset: z.number() }),
  },
  'session.input': {
    params: z.object({ id: Id, text: z.string().optional(), keys: z.array(z.string()).optional() }),
    result: z.object({ ok: z.boolean() }),
  },
  'session.exec': {
    params: z.object({ id: Id, command: z.string().min(1), wait_ms: z.number().int().min(0).max(120000).default(10000) }),
    result: z.object({ ok: z.boolean(), reason: z.string().optional(), cmd: CommandRecordSchema.nullable() }),
  },

  'resource.templates': { params: Empty, result: z.object({ resourceTemplates: z.array(ResourceTemplateView) }) },
  'resource.list': {
    params: z.object({ principal: z.string().min(1), allowed_tools: z.array(z.string()).optional(), cursor: z.string().optional() }),
    result: z.object({ resources: z.array(ResourceView), nextCursor: z.string().optional() }),
  },
  'resource.read': {
    params: z.object({ uri: z.string().min(1).max(1000), principal: z.string().min(1), allowed_tools: z.array(z.string()).optional() }),
    result: z.object({ contents: z.array(ResourceContents) }),
  },

  'oauth.store.upsert': {
    params: z.object({ model: OAuthModelName, id: OAuthId, payload: OAuthPayload, expires_in_s: z.number().int().min(0).optional() }),
    result: z.object({}),
  },
  'oauth.store.find': { params: z.object({ model: OAuthModelName, id: OAuthId }), result: z.object({ payload: OAuthPayload.nullable() }) },
  'oauth.store.find_by_uid': { params: z.object({ uid: OAuthId }), result: z.object({ payload: OAuthPayload.nullable() }) },
  'oauth.store.consume': { params: z.object({ model: OAuthModelName, id: OAuthId }), result: z.object({}) },
  'oauth.store.destroy': { params: z.object({ model: OAuthModelName, id: OAuthId }), result: z.object({}) },
  'oauth.store.revoke_grant': { params: z.object({ grant_id: OAuthId }), result: z.object({ removed: z.number() }) },
  /** Private signing keys (JWK, the signing key first, then retired keys kept for verification) and cookie keys. */
  'oauth.keys': { params: Empty, result: z.object({ keys: z.array(OAuthPayload), cookie_keys: z.array(z.string()) }) },
  'oauth.keys.rotate': { params: Empty, result: z.object({ kid: z.string(), retired: z.array(z.string()), removed: z.array(z.string()) }) },
  /** The principal of an approved client; with `grant_id`, null unless that grant is still live too. */
  'oauth.principal.get': {
    params: z.object({ client_id: OAuthId, grant_id: OAuthId.optional() }),
    result: z.object({ principal: OAuthPrincipalView.nullable() }),
  },
  /**
   * The owner approves a client at the consent page: the proof (owner password or one-time code) is
   * checked — wrong passwords count towards the lockout — and, when good, the client's principal
   * and tool set are recorded. A refusal is a value (`ok: false`), not an error.
   */
  'oauth.consent.approve': {
    params: z.object({
      client_id: OAuthId,
      client_name: z.string().max(500).optional(),
      redirect_uri: z.string().max(2048),
      tools: z.array(z.string()).min(1),
      tool_set: z.string().max(200),
      proof: z.object({ password: z.string().max(1024).optional(), code: z.string().max(64).optional() }),
      /** Address the consent page was submitted from (logged with failures). */
      source: z.string().max(200),
    }),
    result: z.union([
      z.object({ ok: z.literal(true), principal: z.string() }),
      z.object({ ok: z.literal(false), reason: z.enum(['wrong_proof', 'locked', 'no_proof']), message: z.string(), locked_until: z.number().optional() }),
    ]),
  },
  /** Whether an owner password is set, and whether approvals by password are locked right now. */
  'oauth.owner.status': { params: Empty, result: z.object({ password_set: z.boolean(), locked_until: z.number().nullable() }) },
  /** `holdfast oauth approve`: a one-time approval code, and the authorization requests waiting for one. */
  'oauth.approval_code': {
    params: Empty,
    result: z.object({
      code: z.string(),
      expires_at: z.number(),
      pending: z.array(z.object({ client_id: z.string(), redirect_uri: z.string().nullable(), scope: z.string().nullable(), expires_at: z.number().nullable() })),
    }),
  },
  /** `holdfast oauth set-password` (scrypt hash in `<home>/oauth/owner-password`, 0600). */
  'oauth.password.set': { params: z.object({ password: z.string().min(12).max(1024) }), result: z.object({ replaced: z.boolean() }) },
  'oauth.clients': {
    params: Empty,
    result: z.object({
      clients: z.array(
        z.object({
          client_id: z.string(),
          client_name: z.string().nullable(),
          registration: z.enum(['dynamic', 'metadata_document']),
          redirect_uris: z.array(z.string()),
          principal: OAuthPrincipalView.nullable(),
          created_at: z.number().nullable(),
        }),
      ),
    }),
  },
  'oauth.grants': { params: Empty, result: z.object({ grants: z.array(OAuthGrantView) }) },
  /** Revokes a client (its approval, grants and tokens), a principal `oauth:…`, or one grant by id. */
  'oauth.revoke': {
    params: z.object({ target: OAuthId }),
    result: z.object({ principals: z.array(z.string()), grants: z.array(z.string()), tokens: z.number() }),
  },
  /**
   * `holdfast mcp approve <workspace> <name>` (issue 13): approves the workspace's `.mcp.json`
   * entry `name` as it is now (bound to the entry's sha256; a changed entry needs approval again).
   * `workspace` is a registered name or folder. WORKSPACE_NOT_FOUND / EXTENSION_NOT_FOUND /
   * BAD_REQUEST (the entry is invalid).
   */
  'mcp.approve': {
    params: z.object({ workspace: z.string().min(1), name: z.string().min(1).max(64) }),
    result: z.object({
      workspace: z.string(),
      name: z.string(),
      entry_sha256: z.string(),
      /** What was approved, as written in `.mcp.json` (before `${VAR}` expansion). */
      entry: z.record(z.string(), z.unknown()),
      /** A `config.yaml` entry of the same name wins: this approval has no effect while it exists. */
      shadowed_by_config: z.boolean(),
      previously_approved: z.boolean(),
    }),
  },
  'desktop.device_add': {
    params: z
      .object({
        alias: DeviceAlias,
        host: z.string().min(1).max(255),
        port: z.number().int().min(1).max(65535),
        credential: z.union([z.enum(['keyring', 'none']), z.string().regex(/^env:[A-Za-z_][A-Za-z0-9_]*$/, 'keyring, none or env:VAR')]),
        authorization: z.enum(['view', 'control']),
        auto_connect: z.boolean().default(false),
        /** Only with credential `keyring`: stored in the OS keyring, never on disk. */
        password: z.string().min(1).max(1024).optional(),
      })
      .refine((p) => (p.credential === 'keyring') === (p.password !== undefined), 'a password is given exactly when credential is keyring'),
    result: z.object({ device: DeviceView, replaced: z.boolean() }),
  },
  'desktop.device_list': { params: Empty, result: z.object({ devices: z.array(DeviceView) }) },
  'desktop.device_remove': {
    params: z.object({ alias: z.string().min(1).max(64) }),
    result: z.object({ removed: z.boolean(), disconnected: z.string().nullable(), keyring: z.enum(['deleted', 'absent', 'unavailable', 'not_used']) }),
  },
  'desktop.list': { params: Empty, result: z.object({ sessions: z.array(DesktopSessionListing) }) },
  'desktop.pause': {
    params: z.object({ id: z.string().min(1).max(200) }),
    result: z.object({ target: z.string(), desktop_session_id: z.string().nullable(), paused: z.boolean() }),
  },
  'desktop.resume': {
    params: z.object({ id: z.string().min(1).max(200) }),
    result: z.object({ target: z.string(), desktop_session_id: z.string().nullable(), paused: z.boolean() }),
  },
  'desktop.disconnect': {
    params: z.object({ id: z.string().min(1).max(200) }),
    result: z.object({ desktop_session_id: z.string(), remote_session_id: z.string(), device: z.string(), closed: z.boolean() }),
  },
  'desktop.view': {
    params: z.object({ view_id: z.string().min(1).max(200) }),
    result: z.object({ view_id: z.string(), remote_session_id: z.string(), principal: z.string(), workspace: z.string(), device: z.string().nullable(), state: z.string(), devices: z.array(DeviceView) }),
  },
  'desktop.pair': {
    params: z.object({ view_id: z.string().min(1).max(200), device: z.string().min(1).max(64).optional(), close: z.boolean().default(false) }),
    result: z.object({ view_id: z.string(), state: z.string(), desktop_session_id: z.string().nullable(), remote_session_id: z.string(), device: z.string().nullable() }),
  },
  /**
   * The person connects a desktop for a view from the panel page (issue 16 §2): a saved `device`
   * (or `virtual`), or a VNC server typed in (`host`, `port`, `password`). `authorization` is the
   * grant of this connection; `save` adds (or updates) the device `alias` in the book,
   * `remember_password` puts the typed password in the OS keyring (needs `save`), `auto_connect`
   * lets agents connect it without asking (needs `save`). Nothing is granted by default; the
   * password goes to the keyring or to the connection, never to disk. The daemon checks the
   * combinations (BAD_REQUEST naming the field).
   */
  'desktop.panel_connect': {
    params: z.object({
      view_id: z.string().min(1).max(200),
      device: z.string().min(1).max(64).optional(),
      host: z.string().min(1).max(255).optional(),
      port: z.number().int().min(1).max(65535).optional(),
      password: z.string().min(1).max(1024).optional(),
      authorization: z.enum(['view', 'control']).default('view'),
      save: z.boolean().default(false),
      alias: DeviceAlias.optional(),
      remember_password: z.boolean().default(false),
      auto_connect: z.boolean().default(false),
    }),
    result: z.object({
      view_id: z.string(),
      state: z.string(),
      desktop_session_id: z.string(),
      remote_session_id: z.string(),
      device: z.string(),
      saved: DeviceView.nullable(),
    }),
  },
  /**
   * `holdfast desktop pair <view_id>` (issue 16): the view's page URL with a fresh one-time
   * bootstrap secret in its fragment (valid once, for 60 s), for the person's own terminal only.
   */
  'desktop.panel_link': {
    params: z.object({ view_id: z.string().min(1).max(200) }),
    result: z.object({ url: z.string(), expires_at: z.number() }),
  },
  /**
   * `holdfast desktop view --view <view_id>` (issue 16 §5): a one-time ticket for the view's video
   * socket (raw RGB frames for the terminal viewer) and what the view shows.
   */
  'desktop.view_ticket': {
    params: z.object({ view_id: z.string().min(1).max(200) }),
    result: z.object({
      ws_url: z.string(),
      ticket: z.string(),
      expires_at: z.number(),
      view_id: z.string(),
      desktop_session_id: z.string(),
      generation: z.number(),
      remote_session_id: z.string(),
      device: z.string(),
      authorization: z.enum(['view', 'control']),
    }),
  },

  /**
   * `holdfast secret provide` (issue 12, docs/secrets.md): what the session's agent asked for
   * (names and purposes, never values) …
   */
  'secret.pending': {
    params: z.object({ id: Id }),
    result: z.object({
      requests: z.array(z.object({ name: z.string(), purpose: z.string(), requested_at: z.number() })),
      secrets: z.array(z.object({ name: z.string(), purpose: z.string(), provided_at: z.number(), via: z.string() })),
    }),
  },
  /** … and the value the user typed, handed to the session's guardian (memory only; never logged, stored or returned). */
  'secret.provide': {
    params: z.object({ id: Id, name: z.string().regex(SECRET_NAME_RE, 'a variable name'), value: z.string().min(1).max(SecretLimits.VALUE_MAX_BYTES) }),
    result: z.object({ replaced: z.boolean() }),
  },

  'tool.call': {
    params: z.object({ tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}), context: CallContext }),
    result: ToolCallResult,
  },

  /**
   * The live observation stream of a workspace (issue 11, `holdfast observe`): stored events are
   * pushed as `events.batch` evt frames tagged with the caller's `stream` id, in sequence order,
   * only once they are stored. Without `after_seq` the last `history` matching events are replayed
   * first; with it, every matching event after it (a client resuming after a daemon restart). Read
   * only: it runs no tools. Ends with the connection or `events.unfollow`.
   */
  'events.follow': {
    params: z.object({
      stream: z.string().min(1).max(100),
      workspace: z.string().min(1).max(64),
      after_seq: z.number().int().min(0).optional(),
      history: z.number().int().min(0).max(100).default(100),
      tool: z.string().max(100).optional(),
      status: z.string().max(100).optional(),
      operation: z.string().max(100).optional(),
      path: z.string().max(1000).optional(),
      detail: z.boolean().default(false),
      diff: z.enum(['summary', 'preview', 'full']).default('summary'),
    }),
    result: z.object({ stream: z.string(), workspace: z.string(), after_seq: z.number(), head_seq: z.number() }),
  },
  'events.unfollow': { params: z.object({ stream: z.string().min(1).max(100) }), result: z.object({ stopped: z.boolean() }) },
} as const satisfies Record<string, { params: z.ZodType; result: z.ZodType }>;

export type ControlMethod = keyof typeof ControlMethods;
export type ControlParams<M extends ControlMethod> = z.input<(typeof ControlMethods)[M]['params']>;
export type ControlParsedParams<M extends ControlMethod> = z.output<(typeof ControlMethods)[M]['params']>;
export type ControlResult<M extends ControlMethod> = z.infer<(typeof ControlMethods)[M]['result']>;

/** Events the daemon emits on a control connection. */
export const ControlEvents = {
  /** The daemon is draining for a restart; clients reconnect with back-off and resume by offset. */
  draining: 'daemon.draining',
  /**
   * OAuth state an adapter caches changed (issue 14): `{keys: true}` after a key rotation (reload
   * the signing keys), `{clients: [...]}` after a revocation or approval (forget cached principals).
   */
  oauthChanged: 'oauth.changed',
  /**
   * Progress of a running `tool.call` whose context carried `progress_id` (issue 13):
   * `{progress_id, progress, total?, message?}`, sent to the connection that made the call.
   */
  toolProgress: 'tool.progress',
  /** Events of an `events.follow` stream: `{stream, events: StreamEvent[], cursor}` (issue 11). */
  events: 'events.batch',
} as const;

/** Data of a {@link ControlEvents.toolProgress} event (MCP `notifications/progress` fields). */
export interface ToolProgressEvent {
  progress_id: string;
  progress: number;
  total?: number;
  message?: string;
}

/**
 * One event of the observation stream (issue 11): a stored event row in its public shape.
 * `sequence` is the store's sequence number (contiguous across a workspace's stream when one
 * workspace is served); `data` is what was recorded; `output` (command output lines) and `diff`
 * (an edit's changes) are read from the store when the event is pushed, per the stream's options.
 */
export interface StreamEvent {
  sequence: number;
  /** ISO 8601 time the event was recorded. */
  at: string;
  kind: string;
  workspace: string | null;
  remote_session_id: string | null;
  tool: string | null;
  status: string | null;
  data: Record<string, unknown>;
  output?: StreamOutput;
  diff?: StreamDiff;
}

/** Command output of an event: numbered lines, stdout and stderr apart (`pty` for a terminal command). */
export interface StreamOutput {
  streams: { name: 'pty' | 'stdout' | 'stderr'; first_line: number; total_lines: number; lines: string[] }[];
}

/** An edit's changes: per-file counts, and diff lines with `--diff preview|full`. */
export interface StreamDiff {
  files: { path: string; added: number; removed: number }[];
  lines?: string[];
  truncated?: boolean;
}

/** One `events.batch` frame. `cursor`: the last sequence the stream has looked at (resume after it). */
export interface EventsBatch {
  stream: string;
  events: StreamEvent[];
  cursor: number;
}

/** True when `m` names a control method. */
export function isControlMethod(m: string): m is ControlMethod {
  return Object.prototype.hasOwnProperty.call(ControlMethods, m);
}
