import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parsePrincipalsText, type SandboxSettings, type ToolProfileName } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import { PROFILES, RESERVED_TOOL_NAMES } from '@holdfast/shared/tools';
import { checkTokenStrength, readTokenFile, type TokenCheckOptions } from './token-file.js';

/**
 * Principals (DESIGN §6.2): who is calling, and which tools they may list and call. The same set
 * filters `tools/list` and gates `tools/call`, and travels to the daemon in every `CallContext`.
 */
export interface Principal {
  /** Name used as the session owner in the daemon (DESIGN §4.2) and in the usage log. */
  readonly name: string;
  /** Tool names this principal may list and call (sorted, unique, all in the reserved catalogue). */
  readonly allowedTools: readonly string[];
  /** {@link allowedTools} as a set. */
  readonly allowed: ReadonlySet<string>;
  /** SHA-256 of the bearer token; null where no token is involved (`--auth open`, stdio). */
  readonly tokenDigest: Buffer | null;
  /**
   * This principal's own sandbox keys (issue 17), sent with every call (`CallContext.sandbox`);
   * absent = `security.sandbox` of config.yaml decides.
   */
  readonly sandbox?: SandboxSettings;
}

/** How a tool set is chosen: `allowed` (non-empty) replaces the profile. */
export interface ToolSetSpec {
  profile?: ToolProfileName | undefined;
  allowed?: readonly string[] | undefined;
}

const KNOWN = new Set<string>(RESERVED_TOOL_NAMES);

/**
 * Refuses tool names outside the catalogue of DESIGN §6.4 and an empty explicit list.
 * @param where names the setting in the message (`--allow-tool`, `principal "ci"`).
 * @throws HoldfastError `BAD_REQUEST`.
 */
export function validateToolNames(names: readonly string[], where: string): void {
  if (names.length === 0) throw new HoldfastError('BAD_REQUEST', `${where}: allowed_tools is empty; name at least one tool or use a tool_profile`);
  const unknown = names.filter((n) => !KNOWN.has(n));
  if (unknown.length > 0) {
    throw new HoldfastError('BAD_REQUEST', `${where}: unknown tool name(s) ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known tools: ${RESERVED_TOOL_NAMES.join(', ')}`);
  }
}

/**
 * Resolves a tool set: explicit names (validated) or a profile's names, else `fallback`.
 * @throws HoldfastError `BAD_REQUEST` for unknown or empty explicit names.
 */
export function resolveToolSet(spec: ToolSetSpec, where: string, fallback: readonly string[]): string[] {
  if (spec.allowed !== undefined) {
    validateToolNames(spec.allowed, where);
    return [...new Set(spec.allowed)].sort();
  }
  if (spec.profile !== undefined) return [...PROFILES[spec.profile]].sort();
  return [...fallback];
}

/**
 * What an agent cannot do with a tool set that lacks `session` or `workspace` (DESIGN §6.4: every
 * session tool takes a `remote_session_id` that only `session(open)` gives; `session(open)` names
 * a workspace that only `workspace(list)` shows). Such a set is served as configured — an
 * operator may mean it — with this warning naming the gap, or null when there is none.
 * @param where names the setting (`--allow-tool`, `principal "ci" in …`).
 */
export function toolSetGap(tools: readonly string[], where: string): string | null {
  const has = new Set(tools);
  const needSession = tools.filter((t) => t !== 'session' && t !== 'workspace' && t !== 'runtime_read' && t !== 'desktop_list_devices');
  if (!has.has('session') && needSession.length > 0) {
    return `${where}: the tools ${needSession.slice(0, 4).join(', ')}${needSession.length > 4 ? ', …' : ''} need a remote_session_id, but "session" is not allowed, so no session can be opened; add "session" to the list`;
  }
  if (has.has('session') && !has.has('workspace')) {
    return `${where}: "workspace" is not allowed, so the agent cannot list the workspaces session(open) can name; add "workspace" to the list (or tell the agent the workspace's name)`;
  }
  return null;
}

/** Hashes a token for constant-time comparison (equal-length digests). */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Builds a principal (with its own sandbox keys, if any: issue 17). */
export function makePrincipal(name: string, tools: readonly string[], token: string | null, sandbox?: SandboxSettings): Principal {
  const allowedTools = [...new Set(tools)].sort();
  const p = { name, allowedTools, allowed: new Set(allowedTools), tokenDigest: token === null ? null : tokenDigest(token) };
  return sandbox === undefined ? p : { ...p, sandbox };
}

/**
 * Loads a principals file (YAML, see `PrincipalConfig` in shared/config): reads every token (files
 * checked for 0600 and strength, `token_env` variables checked for strength), resolves each tool
 * set against `defaultTools`, and refuses duplicate tokens. Relative `token_file` paths are
 * relative to the principals file.
 * @throws HoldfastError `BAD_REQUEST` naming the principal and the problem.
 */
export function loadPrincipalsFile(path: string, defaultTools: readonly string[], opts: TokenCheckOptions & { env?: NodeJS.ProcessEnv }): Principal[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new HoldfastError('BAD_REQUEST', `principal config ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let entries;
  try {
    entries = parsePrincipalsText(text, path);
  } catch (err) {
    throw new HoldfastError('BAD_REQUEST', (err as Error).message);
  }
  const env = opts.env ?? process.env;
  const principals: Principal[] = [];
  const seen = new Map<string, string>();
  for (const e of entries) {
    const where = `principal "${e.name}" in ${path}`;
    let token: string;
    if (e.token_file !== undefined) {
      const file = isAbsolute(e.token_file) ? e.token_file : resolve(dirname(path), e.token_file);
      try {
        token = readTokenFile(file, opts);
      } catch (err) {
        throw new HoldfastError('BAD_REQUEST', `${where}: ${(err as Error).message}`);
      }
    } else {
      const value = env[e.token_env!];
      if (value === undefined) throw new HoldfastError('BAD_REQUEST', `${where}: environment variable ${e.token_env} is not set`);
      token = value.trim();
      checkTokenStrength(token, `$${e.token_env} (${where})`, opts);
    }
    const tools = resolveToolSet({ profile: e.tool_profile, allowed: e.allowed_tools }, where, defaultTools);
    const p = makePrincipal(e.name, tools, token, e.sandbox);
    const key = p.tokenDigest!.toString('hex');
    const other = seen.get(key);
    if (other !== undefined) throw new HoldfastError('BAD_REQUEST', `${where}: uses the same token as principal "${other}"; every principal needs its own token`);
    seen.set(key, e.name);
    principals.push(p);
  }
  return principals;
}
