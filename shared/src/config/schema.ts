import { parseDocument } from 'yaml';
import * as z from 'zod';
import { DesktopLimits, SessionDefaults } from '../constants.js';

/**
 * `config.yaml` (DESIGN §2): listen address, auth, workspaces, security policy, limits,
 * retention. Every key has a default, so an empty file is a valid config. Command-line flags
 * override these values; a project's `.holdfast.yaml` may only narrow them.
 */
export const ListenConfig = z.object({
  bind: z.string().default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(8000),
  allowed_hosts: z.array(z.string()).default([]),
  allow_non_loopback: z.boolean().default(false),
});

/**
 * `auth.oauth` (issue 14, docs/oauth.md): holdfast's own OAuth 2.1 authorization server and
 * resource-server checks, used when `auth.mode` is `oauth` or `dual`.
 */
export const OAuthConfig = z.object({
  /**
   * The public origin clients are given (`https://…`, usually an HTTPS reverse proxy or tunnel in
   * front of the loopback bind). Issuer, metadata, `resource` and token audience all derive from
   * it. Default: the loopback listen address (`http://127.0.0.1:PORT`), for local clients only.
   */
  server_url: z.string().url().optional(),
  /** Trust the proxy's `X-Forwarded-For` for the client address (and, without server_url, `-Proto`/`-Host` for scheme and host). */
  trust_proxy_headers: z.boolean().default(false),
  /** Scope an access token needs for `/mcp`, and the scope given when a client asks for none. */
  scope: z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'one OAuth scope token').default('mcp'),
  /** Lifetime of JWT access tokens, seconds. */
  access_token_ttl_s: z.number().int().min(60).max(86400).default(3600),
  /** Lifetime of a refresh token (each use rotates it and starts a new one), seconds. */
  refresh_token_ttl_s: z.number().int().min(3600).default(30 * 86400),
  /** How long a one-time approval code from `holdfast oauth approve` stays valid, seconds. */
  approval_code_ttl_s: z.number().int().min(30).max(3600).default(300),
  /** Wrong owner passwords in a row before approvals by password are locked. */
  password_max_failures: z.number().int().min(1).default(10),
  /** How long the lock lasts, seconds. */
  password_lockout_s: z.number().int().min(1).default(900),
});
export type OAuthConfig = z.infer<typeof OAuthConfig>;

export const AuthConfig = z.object({
  /** `bearer` (static tokens), `oauth` (OAuth access tokens), `dual` (either), `open` (none; loopback only). */
  mode: z.enum(['bearer', 'open', 'oauth', 'dual']).default('bearer'),
  /** Token file (0600 regular file); default `<home>/token`, generated when absent. */
  token_file: z.string().optional(),
  /** Principals file (DESIGN §6.2). */
  principal_config: z.string().optional(),
  allow_weak_token: z.boolean().default(false),
  allow_query_token: z.boolean().default(false),
  oauth: OAuthConfig.prefault({}),
});

export const ToolProfileName = z.enum(['full', 'coding', 'read-only', 'terminal', 'desktop']);
export type ToolProfileName = z.infer<typeof ToolProfileName>;

export const ToolsConfig = z.object({
  profile: ToolProfileName.default('full'),
  /** Replaces the profile when non-empty. */
  allowed: z.array(z.string()).default([]),
});

export const SessionsConfig = z.object({
  affinity: z.enum(['workspace', 'conversation', 'thread']).default('workspace'),
  max_live: z.number().int().min(1).max(1024).default(SessionDefaults.MAX_LIVE_SESSIONS),
  /**
   * Live sessions one principal may hold (docs/sessions.md "Quota"): unset means half of
   * `max_live`, rounded up (16 of 32); never more than `max_live`. One principal cannot take every
   * session, and its own never-used idle session is reclaimed before it is refused.
   */
  max_live_per_principal: z.number().int().min(1).max(1024).optional(),
  ttl_never_executed_s: z.number().min(0).default(SessionDefaults.IDLE_TTL_NEVER_EXECUTED_S),
  ttl_executed_s: z.number().min(0).default(SessionDefaults.IDLE_TTL_EXECUTED_S),
  orphan_timeout_s: z.number().int().min(1).default(SessionDefaults.ORPHAN_TIMEOUT_S),
  reaper_interval_ms: z.number().int().min(100).default(SessionDefaults.REAPER_INTERVAL_MS),
  /** Shell for new sessions; default bash, else `$SHELL`. */
  shell: z.string().optional(),
  /**
   * Guardian starts (issue 18): at most `concurrency` sessions start at once and `queue` more
   * wait their turn; an open beyond that is refused with a retryable `SPAWN_QUEUE_FULL`.
   */
  spawn: z
    .object({
      concurrency: z.number().int().min(1).max(64).default(SessionDefaults.SPAWN_CONCURRENCY),
      queue: z.number().int().min(0).max(4096).default(SessionDefaults.SPAWN_QUEUE),
    })
    .prefault({}),
});

/**
 * How a session's shell starts (issue 9; docs/sessions.md "The shell's start-up"): `locale` —
 * `auto` (the daemon's environment when it names a locale, else the user's configured one, else
 * `C.UTF-8`), `inherit` (the daemon's environment as it is) or a locale name; `rc_timeout_ms` —
 * how long the user's rc files may take to reach a first prompt before the shell is restarted
 * without them.
 */
export const ShellStartConfig = z.object({
  locale: z.string().min(1).regex(/^[A-Za-z0-9_.@-]+$/, 'auto, inherit or a locale name such as en_US.UTF-8').default('auto'),
  rc_timeout_ms: z.number().int().min(200).max(600_000).default(6000),
});

export const LimitsConfig = z.object({
  max_body_bytes: z.number().int().min(1024).default(64 * 1024 * 1024),
  request_timeout_ms: z.number().int().min(100).default(120_000),
  max_concurrency: z.number().int().min(1).default(32),
  requests_per_minute: z.number().int().min(1).default(120),
  read_window_bytes: z.number().int().min(1024).default(256 * 1024),
  /** Request-body bytes the HTTP adapter holds in memory at once, all requests together (else 503). */
  max_inflight_body_bytes: z.number().int().min(1024).default(256 * 1024 * 1024),
  /** How long `edit` waits for its `verify_command` before answering with the task to attach to, ms. */
  verify_wait_ms: z.number().int().min(0).default(20_000),
});

export const WorkspaceConfig = z.object({
  name: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ - only'),
  path: z.string().min(1),
  description: z.string().default(''),
});
export type WorkspaceConfig = z.infer<typeof WorkspaceConfig>;

/**
 * Command rules in force when `config.yaml` does not list its own (issue 5; docs/command-policy.md):
 * the generated config spells out the same lists. A home that wants none writes `deny: []` — the
 * built-in floor (protected folders, raw devices, killing every process; daemon/src/policy/
 * builtins.ts) holds whatever these lists say.
 *
 * - deny: wiping the system, formatting disks, powering the machine off (`systemctl poweroff`,
 *   `init 0`, …);
 * - confirm: publishing (`git push`), containers (`docker`, `podman`), and installing third-party
 *   code, which runs install scripts: `npm install` (also `npm i`, `npm add`, …), `npm ci` (it
 *   installs whatever package-lock.json says, a file the agent can edit), `pnpm install|add`,
 *   `yarn install|add` (bare `yarn` too), `pip install` (also `python3 -m pip install`).
 */
export const DEFAULT_COMMAND_RULES = {
  deny: [
    'rm -rf /', "rm -rf '/*'", 'rm -rf ~', 'mkfs', 'mkfs.*', 'mke2fs', 'mkswap', 'wipefs', 'blkdiscard',
    'shutdown', 'reboot', 'poweroff', 'halt', 'systemctl poweroff', 'systemctl reboot', 'systemctl halt', 'systemctl kexec',
    'init 0', 'init 6', 'telinit 0', 'telinit 6',
    'systemctl *start *reboot*', 'systemctl *start *poweroff*', 'systemctl *start *halt*', 'systemctl *start *kexec*', 'systemctl *start ctrl-alt-del*',
    'systemctl isolate *reboot*', 'systemctl isolate *poweroff*', 'systemctl isolate *halt*',
    'systemctl soft-reboot', 'kexec -e', 'mkdosfs', 'mkntfs', 'mkexfatfs',
    'sgdisk -Z', 'sgdisk --zap-all', 'cryptsetup luksFormat', 'nvme format', 'nvme sanitize', 'hdparm --security-erase', 'hdparm --security-erase-enhanced',
  ],
  confirm: [
    'git push', 'git send-pack', 'git clean', 'git reset --hard', 'git checkout -- .', 'git restore .', 'git stash -u', 'git stash -a', 'git stash --include-untracked', 'git stash --all',
    'git checkout -- :/', 'git restore :/', 'git checkout -f', 'git switch --discard-changes', 'git switch -f', 'docker', 'docker-compose', 'nerdctl', 'podman', 'npm install', 'npm ci', 'pnpm install', 'pnpm add', 'yarn install', 'yarn add', 'pip install', 'pip3 install', 'pip3.* install', 'uv pip install',
    'fdisk', 'sfdisk', 'sgdisk', 'parted', 'systemctl isolate', 'systemctl rescue', 'systemctl emergency',
  ],
} as const;

/** `security.commands`: rules are command names with leading arguments (daemon/src/policy/rules.ts). */
export const CommandRulesConfig = z.object({
  default: z.enum(['allow', 'confirm', 'deny']).default('allow'),
  deny: z.array(z.string()).default([...DEFAULT_COMMAND_RULES.deny]),
  confirm: z.array(z.string()).default([...DEFAULT_COMMAND_RULES.confirm]),
  allow: z.array(z.string()).default([]),
  /** A confirmation (`waiting_confirmation`) stays valid this long, seconds. */
  confirm_ttl_s: z.number().int().min(1).max(86400).default(600),
});

/** How a session's shell is confined (issue 17, docs/sandbox.md). `off` keeps today's behaviour. */
export const SandboxMode = z.enum(['off', 'auto', 'bwrap', 'landlock']);
export type SandboxMode = z.infer<typeof SandboxMode>;

/** Network of a sandboxed session: `on`, or `off` (YAML booleans are accepted: false = off). */
export const SandboxNetwork = z.union([z.enum(['on', 'off']), z.boolean().transform((b) => (b ? 'on' : 'off') as 'on' | 'off')]);
export type SandboxNetwork = 'on' | 'off';

/** A writable path: absolute, or `~` / `~/…` (the daemon's home). */
const WritablePath = z.string().min(1).refine((p) => p.startsWith('/') || p === '~' || p.startsWith('~/'), 'give an absolute path or one starting with ~/');

/** Writable paths outside the workspace by default: the package caches builds and installs use. */
export const DEFAULT_SANDBOX_WRITABLE = ['~/.npm', '~/.cache', '~/.cargo/registry', '~/go/pkg'] as const;

/**
 * The sandbox keys of one principal (issue 17): each key given replaces the global one. They reach
 * the daemon in the call context (`CallContext.sandbox`) or from `security.sandbox.principals`.
 */
export const SandboxSettings = z
  .object({
    mode: SandboxMode.optional(),
    network: SandboxNetwork.optional(),
    writable: z.array(WritablePath).optional(),
  })
  .strict();
export type SandboxSettings = z.infer<typeof SandboxSettings>;

/**
 * `security.sandbox` (issue 17, docs/sandbox.md): `mode` off | auto | bwrap | landlock — any mode
 * but `off` is a requirement (a session that cannot be confined is refused, never run unconfined);
 * `network` on | off; `writable` = extra writable paths besides the workspace and a private /tmp.
 * `principals` maps a principal name, or a pattern with `*` (`oauth:*`), to its own keys.
 * `bwrap_path` and `landlock_helper` locate the two mechanisms (default: `bwrap` on PATH and the
 * helper built by `npm ci`).
 */
export const SandboxConfig = z.object({
  mode: SandboxMode.default('off'),
  network: SandboxNetwork.default('on'),
  writable: z.array(WritablePath).default([...DEFAULT_SANDBOX_WRITABLE]),
  principals: z.record(z.string().min(1), SandboxSettings).default({}),
  bwrap_path: z.string().min(1).default('bwrap'),
  landlock_helper: z.string().min(1).optional(),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

export const SecurityConfig = z.object({
  commands: CommandRulesConfig.prefault({}),
  /**
   * Workspace file rules (issue 4): `deny` = regexes over workspace-relative paths (`/`-separated)
   * that no file tool may read, list, edit or move; `max_patch_files` / `max_patch_lines` bound one
   * `edit` call (distinct targets / changed lines). A project's `.holdfast.yaml` may only narrow them.
   */
  files: z
    .object({
      deny: z.array(z.string()).default(['^\\.git/']),
      max_patch_files: z.number().int().min(1).max(100).default(100),
      max_patch_lines: z.number().int().min(1).max(100_000).default(1000),
    })
    .prefault({}),
  sandbox: SandboxConfig.prefault({}),
});

/** Name of an upstream MCP server (issue 13): a key of `mcp_servers` or of `.mcp.json` `mcpServers`. */
export const McpServerName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only (1-64)');

/**
 * One upstream MCP server (issue 13; docs/extensions.md), the shape Claude Code and Cursor read
 * in `.mcp.json` (`mcpServers.{name}`), also used by `config.yaml` `mcp_servers.{name}`:
 * stdio (`command`, `args`, `env`, optional `cwd` relative to the workspace root) or Streamable
 * HTTP (`type: "http"`, `url`, `headers`). `${VAR}` and `${VAR:-default}` in command, args, env,
 * cwd, url and headers are expanded from the daemon's environment when the server starts.
 * holdfast's own keys: `description` (shown by `mcp_tool list`) and `protocol_era` (`legacy`: the
 * 2025 `initialize` handshake, the default for stdio; `auto`: probe `server/discover` first, the
 * default for HTTP; `modern`: 2026-07-28 only). Unknown keys (Claude Code's own) are ignored.
 */
export const McpServerEntry = z
  .looseObject({
    type: z.enum(['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    url: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).default({}),
    description: z.string().max(500).optional(),
    protocol_era: z.enum(['legacy', 'auto', 'modern']).optional(),
  })
  .refine((e) => e.type !== 'sse', 'the legacy HTTP+SSE transport is not supported; use type "http" (Streamable HTTP)')
  .refine((e) => (e.command === undefined) !== (e.url === undefined), 'give exactly one of command (stdio) or url (type "http")')
  .refine((e) => e.url === undefined || e.type === undefined || e.type !== 'stdio', 'a stdio server has a command, not a url');
export type McpServerEntry = z.infer<typeof McpServerEntry>;

/**
 * Retention (`config.yaml` `retention:`; issue 5 `task_days`, issue 11 the other clocks). Each kind
 * of record ages out on its own clock, in days (fractions allowed; 0 keeps that kind forever):
 * finished tasks and their logs (`task_days`), events of ended sessions and daemon-wide events
 * (`event_days`), artifacts of ended sessions (`artifact_days`), plans of ended sessions and
 * delivered plans (`plan_days`), the step results of finished operations (`operation_days`, issue
 * 12: the id then answers `OPERATION_RESULT_EXPIRED`). Running tasks, whatever an undelivered plan
 * cites as evidence and the artifacts of live sessions are always kept. `sweep_interval_s` is how
 * often a sweep runs.
 */
/**
 * `desktop` (issue 15; docs/desktop.md): the private display of a session (`virtual`), which X
 * displays `screenshot_capture` may read, and the typing speed of `type_text`.
 */
/** `desktop.panel.mode` and `holdfast serve --panel` (issue 16). */
export const PanelModeSetting = z.enum(['auto', 'apps', 'browser', 'terminal', 'off']);
export type PanelModeSetting = z.infer<typeof PanelModeSetting>;

export const DesktopConfig = z.object({
  /** X displays (e.g. `:0`) `screenshot_capture` may capture; none by default. */
  capture_displays: z.array(z.string().regex(/^:\d{1,4}(\.\d{1,2})?$/, 'an X display such as :0')).default([]),
  virtual: z
    .object({
      width: z.number().int().min(64).max(8192).default(DesktopLimits.VIRTUAL_WIDTH_DEFAULT),
      height: z.number().int().min(64).max(8192).default(DesktopLimits.VIRTUAL_HEIGHT_DEFAULT),
      /** `auto`: Xtigervnc when installed, else Xvfb + x11vnc. */
      server: z.enum(['auto', 'xtigervnc', 'xvfb']).default('auto'),
      /** Window manager run on the private display (`''` for none). */
      window_manager: z.string().default('openbox'),
    })
    .prefault({}),
  /** Pause between two characters of `type_text`, ms. */
  type_interval_ms: z.number().int().min(0).max(1000).default(DesktopLimits.TYPE_KEY_INTERVAL_MS),
  /**
   * The desktop panel (issue 16; docs/desktop.md): how `desktop_open` presents a view to the person
   * (`holdfast serve --panel` overrides `mode`), and the command that opens the page for them.
   */
  panel: z
    .object({
      /** auto: an MCP Apps view for clients that declare the UI extension, else a browser when a display is present, the terminal viewer when a terminal is, else off. */
      mode: PanelModeSetting.default('auto'),
      /** Command that opens a URL for the person (the URL is appended); empty = `xdg-open`. */
      browser: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
});

export const RetentionConfig = z.object({
  task_days: z.number().min(0).default(30),
  event_days: z.number().min(0).default(30),
  artifact_days: z.number().min(0).default(30),
  plan_days: z.number().min(0).default(90),
  operation_days: z.number().min(0).default(7),
  sweep_interval_s: z.number().int().min(1).default(6 * 60 * 60),
});

export const HoldfastConfig = z.object({
  listen: ListenConfig.prefault({}),
  auth: AuthConfig.prefault({}),
  tools: ToolsConfig.prefault({}),
  sessions: SessionsConfig.prefault({}),
  shell: ShellStartConfig.prefault({}),
  limits: LimitsConfig.prefault({}),
  workspaces: z.array(WorkspaceConfig).default([]),
  security: SecurityConfig.prefault({}),
  retention: RetentionConfig.prefault({}),
  /**
   * Upstream MCP servers every session may use through `mcp_tool` (issue 13), by name. A
   * workspace's `.mcp.json` adds its own (each needs `holdfast mcp approve` first); on a name
   * clash the entry here wins. Entries are checked when a session uses them, so one bad entry
   * never stops the daemon (it is listed as `invalid`).
   */
  mcp_servers: z.record(z.string(), z.unknown()).default({}),
  desktop: DesktopConfig.prefault({}),
});
export type HoldfastConfig = z.infer<typeof HoldfastConfig>;

/** The principal of the machine owner: the single configured token, `--auth open`, and stdio. */
export const OWNER_PRINCIPAL = 'owner';
/** Prefix of the principals OAuth clients get (issue 14): `oauth:<client id>`. */
export const OAUTH_PRINCIPAL_PREFIX = 'oauth:';

/**
 * Why a principals-file name is reserved, or null (issue 18): {@link OWNER_PRINCIPAL} in any
 * case (it would share sessions with stdio and the default token) and every name starting with
 * {@link OAUTH_PRINCIPAL_PREFIX} (it would share sessions with an OAuth client).
 */
export function reservedPrincipalName(name: string): string | null {
  if (name.toLowerCase() === OWNER_PRINCIPAL) return `"${name}" is reserved for the machine owner (stdio, --auth open and the single token share its sessions)`;
  if (name.toLowerCase().startsWith(OAUTH_PRINCIPAL_PREFIX)) return `"${name}" starts with "${OAUTH_PRINCIPAL_PREFIX}", which is reserved for OAuth clients`;
  return null;
}

/**
 * One principal of a principals file (`--principal-config`, DESIGN §6.2): a name, where its bearer
 * token comes from (`token_file`, a 0600 regular file, or `token_env`, an environment variable),
 * and the tools it may list and call (`tool_profile`, or `allowed_tools`, which replaces the
 * profile and must be non-empty). Neither tool key = the server's default profile. Reserved
 * names ({@link reservedPrincipalName}) are refused.
 */
export const PrincipalConfig = z
  .object({
    name: z
      .string()
      .min(1)
      .max(64)
      .superRefine((n, ctx) => {
        const why = reservedPrincipalName(n);
        if (why) ctx.addIssue({ code: 'custom', message: `${why}; choose another name` });
      })
      .regex(/^[A-Za-z0-9._@-]+$/, 'letters, digits, . _ @ - only'),
    token_file: z.string().min(1).optional(),
    token_env: z.string().min(1).optional(),
    tool_profile: ToolProfileName.optional(),
    allowed_tools: z.array(z.string()).optional(),
    /** Sandbox keys of this principal (issue 17): replace `security.sandbox` key by key. */
    sandbox: SandboxSettings.optional(),
  })
  .strict()
  .refine((p) => (p.token_file === undefined) !== (p.token_env === undefined), 'give exactly one of token_file or token_env')
  .refine((p) => p.tool_profile === undefined || p.allowed_tools === undefined, 'give tool_profile or allowed_tools, not both')
  .refine((p) => p.allowed_tools === undefined || p.allowed_tools.length > 0, 'allowed_tools must not be empty');
export type PrincipalConfig = z.infer<typeof PrincipalConfig>;

/** A principals file: `principals: [...]` (or the bare list). Names must be unique. */
export const PrincipalsFile = z
  .union([z.object({ principals: z.array(PrincipalConfig).min(1) }).strict(), z.array(PrincipalConfig).min(1)])
  .transform((v) => (Array.isArray(v) ? v : v.principals))
  .refine((list) => new Set(list.map((p) => p.name)).size === list.length, 'principal names must be unique');
export type PrincipalsFile = z.infer<typeof PrincipalsFile>;

/**
 * Parses the text of a principals file (YAML). Problems are thrown with the file name and the key,
 * so a typo refuses start-up instead of silently widening access.
 * @throws Error naming `source` and the first problem.
 */
export function parsePrincipalsText(text: string, source: string): PrincipalsFile {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]!.message}`);
  const parsed = PrincipalsFile.safeParse(doc.toJS() ?? null);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}
