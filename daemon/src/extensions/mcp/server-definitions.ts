import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { McpServerEntry, McpServerName, type HoldfastConfig } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import type { UpstreamSpec } from '@holdfast/shared/protocol';
import { jsonSha256 } from '../digest.js';

/** Where an upstream server is defined (issue 13). */
export type ServerSource = 'config' | 'workspace';

/** One upstream MCP server as defined, before `${VAR}` expansion. */
export interface ServerDefinition {
  name: string;
  source: ServerSource;
  /** The entry as written. */
  raw: unknown;
  /** The parsed entry, or null when it is invalid (see `error`). */
  entry: McpServerEntry | null;
  error: string | null;
  /**
   * What an approval is bound to: sha256 (RFC 8785) of the entry as written and, for a workspace
   * entry, of the bytes of every file its command and args name ({@link entryFiles}); the entry
   * alone when it names no file.
   */
  entrySha256: string;
}

/** Name of a workspace's MCP file (Claude Code and Cursor read the same). */
export const WORKSPACE_MCP_FILE = '.mcp.json';

/**
 * The servers a session on `workspaceRoot` may use (issue 13; docs/extensions.md):
 * `config.yaml` `mcp_servers`, then the workspace's `.mcp.json` `mcpServers` — on a name clash the
 * config entry wins and the workspace one is not listed. An entry that does not parse is listed
 * with its `error` (state `invalid`); an unreadable or malformed `.mcp.json` gives one pseudo
 * entry named `.mcp.json` with the parse error, so the user sees why its servers are missing.
 */
export function serverDefinitions(config: HoldfastConfig, workspaceRoot: string): ServerDefinition[] {
  const out: ServerDefinition[] = [];
  const names = new Set<string>();
  for (const [name, raw] of Object.entries(config.mcp_servers)) {
    out.push(defineServer(name, 'config', raw));
    names.add(name);
  }
  const file = readWorkspaceServers(workspaceRoot);
  if (file.error !== null) {
    out.push({ name: WORKSPACE_MCP_FILE, source: 'workspace', raw: null, entry: null, error: file.error, entrySha256: '' });
  }
  for (const [name, raw] of Object.entries(file.servers)) {
    if (names.has(name)) continue;
    out.push(defineServer(name, 'workspace', raw, workspaceRoot));
  }
  return out;
}

/** The `mcpServers` object of `<root>/.mcp.json` (empty when the file does not exist). */
export function readWorkspaceServers(workspaceRoot: string): { servers: Record<string, unknown>; error: string | null } {
  let text: string;
  try {
    text = readFileSync(join(workspaceRoot, WORKSPACE_MCP_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { servers: {}, error: null };
    return { servers: {}, error: `${WORKSPACE_MCP_FILE} cannot be read: ${(err as Error).message}` };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { servers: {}, error: `${WORKSPACE_MCP_FILE} is not JSON: ${(err as Error).message}` };
  }
  const servers = doc && typeof doc === 'object' ? (doc as { mcpServers?: unknown }).mcpServers : undefined;
  if (servers === undefined) return { servers: {}, error: null };
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) return { servers: {}, error: `${WORKSPACE_MCP_FILE}: mcpServers must be an object of servers by name` };
  return { servers: servers as Record<string, unknown>, error: null };
}

/** Files up to this size are hashed by content; larger ones (a `node` binary) by identity, bytes. */
const HASHED_FILE_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The files a stdio entry runs that an approval covers (issue 13, docs/extensions.md): the
 * command and each argument that, with `${VAR}` expanded from the daemon's environment and taken
 * relative to the entry's cwd (default: the workspace root), names an existing regular file — the
 * script of `node server.js`, a `./bin/server`. A bare command name (`node`, found through PATH)
 * is not a file of the entry. Each file is hashed by its bytes (up to {@link HASHED_FILE_MAX_BYTES};
 * larger ones by device, inode, size and mtime), keyed by the argument as written (the hash does
 * not depend on where the workspace is mounted). Files the script loads in turn are not covered.
 */
export function entryFiles(entry: McpServerEntry, workspaceRoot: string): { arg: string; sha256: string }[] {
  if (entry.command === undefined) return [];
  const x = (v: string): string => expandVariables(v, process.env, new Set());
  const base = entry.cwd === undefined ? workspaceRoot : resolveIn(workspaceRoot, x(entry.cwd));
  const out: { arg: string; sha256: string }[] = [];
  const seen = new Set<string>();
  const names = [...(entry.command.includes('/') ? [entry.command] : []), ...entry.args];
  for (const a of names.slice(0, 16)) {
    const v = x(a);
    if (v === '' || v.startsWith('-')) continue;
    const p = isAbsolute(v) ? v : resolve(base, v);
    try {
      const st = statSync(p, { bigint: true });
      if (!st.isFile() || seen.has(p)) continue;
      seen.add(p);
      const sha256 =
        st.size <= BigInt(HASHED_FILE_MAX_BYTES)
          ? createHash('sha256').update(readFileSync(p)).digest('hex')
          : jsonSha256({ dev: String(st.dev), ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs) });
      out.push({ arg: a, sha256 });
    } catch {
      // not a file (a flag value, a URL, a missing path)
    }
  }
  return out;
}

/**
 * One entry, parsed (an invalid one keeps its `error`). With `workspaceRoot` (a workspace entry)
 * the hash an approval is bound to covers the files the entry runs ({@link entryFiles}), so
 * editing the script after approving the server requires approval again.
 */
export function defineServer(name: string, source: ServerSource, raw: unknown, workspaceRoot?: string): ServerDefinition {
  const base = { name, source, raw, entrySha256: jsonSha256(raw ?? null) };
  if (!McpServerName.safeParse(name).success) return { ...base, entry: null, error: `server name "${name}" must be 1-64 letters, digits, _ . or -` };
  const parsed = McpServerEntry.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ...base, entry: null, error: `${issue.path.join('.') || 'entry'}: ${issue.message}` };
  }
  if (workspaceRoot !== undefined) {
    const files = entryFiles(parsed.data, workspaceRoot);
    if (files.length > 0) base.entrySha256 = jsonSha256({ entry: raw ?? null, files });
  }
  return { ...base, entry: parsed.data, error: null };
}

const VAR_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` as Claude Code does in `.mcp.json` (issue 13): from
 * `env` (the daemon's environment); `${VAR:-default}` uses the default when VAR is unset or empty.
 * @throws HoldfastError BAD_REQUEST naming the variables that are unset and have no default.
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return text.replace(VAR_RE, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && (v !== '' || fallback === undefined)) return v;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return '';
  });
}

/**
 * The spec a guardian starts (issue 13): variables expanded from `env`, a relative `cwd` taken from
 * the workspace root (default: the root), the protocol era (`legacy` for stdio, `auto` for HTTP
 * unless `protocol_era` says otherwise) and the spec's hash (a changed spec, or for a workspace entry
 * a changed approval hash, restarts the server).
 * @throws HoldfastError BAD_REQUEST for an invalid entry or unset variables.
 */
export function resolveSpec(def: ServerDefinition, workspaceRoot: string, env: NodeJS.ProcessEnv): UpstreamSpec {
  const e = def.entry;
  if (!e) throw new HoldfastError('BAD_REQUEST', `upstream server "${def.name}" is invalid: ${def.error}`, { retryable: false });
  const missing = new Set<string>();
  const x = (s: string): string => expandVariables(s, env, missing);
  const xRecord = (r: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, x(v)]));
  let spec: Omit<UpstreamSpec, 'hash'>;
  if (e.command !== undefined) {
    const cwd = e.cwd === undefined ? workspaceRoot : resolveIn(workspaceRoot, x(e.cwd));
    spec = { name: def.name, transport: 'stdio', command: x(e.command), args: e.args.map(x), env: xRecord(e.env), cwd, era: e.protocol_era ?? 'legacy' };
  } else {
    spec = { name: def.name, transport: 'http', url: x(e.url!), headers: xRecord(e.headers), era: e.protocol_era ?? 'auto' };
  }
  if (missing.size > 0) {
    const list = [...missing].sort().join(', ');
    throw new HoldfastError('BAD_REQUEST', `upstream server "${def.name}" uses ${list}, which ${missing.size > 1 ? 'are' : 'is'} not set in holdfastd's environment; set it where the daemon starts, or give a default as \${VAR:-value}`, {
      retryable: false,
      details: { server: def.name, missing: [...missing].sort() },
    });
  }
  if (spec.transport === 'http') {
    let url: URL;
    try {
      url = new URL(spec.url!);
    } catch {
      throw new HoldfastError('BAD_REQUEST', `upstream server "${def.name}": url ${JSON.stringify(spec.url)} is not a URL`, { retryable: false });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new HoldfastError('BAD_REQUEST', `upstream server "${def.name}": url must be http or https`, { retryable: false });
  }
  // The approval hash too: a re-approved script (same entry, new bytes) restarts a running server.
  return { ...spec, hash: jsonSha256(def.source === 'workspace' ? { spec, approved: def.entrySha256 } : spec) };
}

function resolveIn(root: string, p: string): string {
  return isAbsolute(p) ? p : resolve(root, p);
}
