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
});

export const LimitsConfig = z.object({
  max_body_bytes: z.number().int().min(1024).default(64 * 1024 * 1024),
  request_timeout_ms: z.number().int().min(100).default(120_000),
  max_concurrency: z.number().int().min(1).default(32),
  requests_per_minute: z.number().int().min(1).default(120),
  read_window_bytes: z.number().int().min(1024).default(1024 * 1024),
});

export const WorkspaceConfig = z.object({
  name: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ - only'),
  path: z.string().min(1),
  description: z.string().default(''),
});
export type WorkspaceConfig = z.infer<typeof WorkspaceConfig>;

export const CommandRulesConfig = z.object({
  default: z.enum(['allow', 'confirm', 'deny']).default('allow'),
  deny: z.array(z.string()).default([]),
  confirm: z.array(z.string()).default([]),
  allow: z.array(z.string()).default([]),
});

export const SecurityConfig = z.object({
  commands: CommandRulesConfig.prefault({}),
  files: z.object({ deny: z.array(z.string()).default(['^\\.git/']) }).prefault({}),
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
