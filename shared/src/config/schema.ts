import { parseDocument } from 'yaml';
import * as z from 'zod';
import { SessionDefaults } from '../constants.js';

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

export const AuthConfig = z.object({
  mode: z.enum(['bearer', 'open']).default('bearer'),
  /** Token file (0600 regular file); default `<home>/token`, generated when absent. */
  token_file: z.string().optional(),
  /** Principals file (DESIGN §6.2). */
  principal_config: z.string().optional(),
  allow_weak_token: z.boolean().default(false),
  allow_query_token: z.boolean().default(false),
});

export const ToolProfileName = z.enum(['full', 'coding', 'read-only', 'terminal']);
export type ToolProfileName = z.infer<typeof ToolProfileName>;

export const ToolsConfig = z.object({
  profile: ToolProfileName.default('full'),
  /** Replaces the profile when non-empty. */
  allowed: z.array(z.string()).default([]),
});

export const SessionsConfig = z.object({
  affinity: z.enum(['workspace', 'conversation', 'thread']).default('workspace'),
  max_live: z.number().int().min(1).max(1024).default(SessionDefaults.MAX_LIVE_SESSIONS),
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

export const LimitsConfig = z.object({
  max_body_bytes: z.number().int().min(1024).default(64 * 1024 * 1024),
  request_timeout_ms: z.number().int().min(100).default(120_000),
  max_concurrency: z.number().int().min(1).default(32),
  requests_per_minute: z.number().int().min(1).default(120),
  read_window_bytes: z.number().int().min(1024).default(1024 * 1024),
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
});

export const RetentionConfig = z.object({
  task_days: z.number().min(0).default(30),
});

export const HoldfastConfig = z.object({
  listen: ListenConfig.prefault({}),
  auth: AuthConfig.prefault({}),
  tools: ToolsConfig.prefault({}),
  sessions: SessionsConfig.prefault({}),
  limits: LimitsConfig.prefault({}),
  workspaces: z.array(WorkspaceConfig).default([]),
  security: SecurityConfig.prefault({}),
  retention: RetentionConfig.prefault({}),
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
