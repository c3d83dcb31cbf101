import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ControlResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import type { ConfigStore } from '../../config-store.js';
import type { McpApprovalsRepo } from '../../store/mcp-approvals-repo.js';
import { defineServer, readWorkspaceServers, WORKSPACE_MCP_FILE } from './server-definitions.js';

/**
 * `holdfast mcp approve <workspace> <name>` (issue 13; docs/extensions.md): records that the user
 * approved the workspace's `.mcp.json` entry `name` exactly as it is now (its sha256, with the bytes
 * of the files it runs: `defineServer`). Until then,
 * and again after the entry changes, the server is listed as `needs_approval` and never started —
 * a cloned repository cannot start a program on this machine by shipping a `.mcp.json`.
 * `workspace` is a registered workspace's name or folder.
 * @throws HoldfastError WORKSPACE_NOT_FOUND, EXTENSION_NOT_FOUND (no such entry), BAD_REQUEST (an
 *   unreadable `.mcp.json` or an invalid entry: nothing is approved).
 */
export function approveServer(config: ConfigStore, approvals: McpApprovalsRepo, workspace: string, name: string): ControlResult<'mcp.approve'> {
  const ws = findWorkspace(config, workspace);
  const root = realpathSync(ws.path);
  const file = readWorkspaceServers(root);
  if (file.error !== null) throw new HoldfastError('BAD_REQUEST', `${root}/${file.error}`, { retryable: false });
  if (!Object.prototype.hasOwnProperty.call(file.servers, name)) {
    const names = Object.keys(file.servers);
    throw new HoldfastError('EXTENSION_NOT_FOUND', `${root}/${WORKSPACE_MCP_FILE} defines no server "${name}"; it defines: ${names.join(', ') || '(none)'}`, { retryable: false, details: { servers: names } });
  }
  const def = defineServer(name, 'workspace', file.servers[name], root);
  if (def.error !== null) throw new HoldfastError('BAD_REQUEST', `server "${name}" in ${root}/${WORKSPACE_MCP_FILE} is invalid (${def.error}); nothing was approved`, { retryable: false });
  const previous = approvals.get(root, name);
  approvals.put({ workspace_root: root, name, entry_sha256: def.entrySha256, approved_at: Date.now() });
  return {
    workspace: ws.name,
    name,
    entry_sha256: def.entrySha256,
    entry: def.raw as Record<string, unknown>,
    shadowed_by_config: Object.prototype.hasOwnProperty.call(config.config.mcp_servers, name),
    previously_approved: previous?.entry_sha256 === def.entrySha256,
  };
}

function findWorkspace(config: ConfigStore, workspace: string): { name: string; path: string } {
  const byName = config.findWorkspace(workspace);
  if (byName) return byName;
  let real: string | null = null;
  try {
    real = realpathSync(resolve(workspace));
  } catch {
    real = null;
  }
  const byPath = real === null ? undefined : config.config.workspaces.find((w) => safeRealpath(w.path) === real);
  if (byPath) return byPath;
  throw new HoldfastError('WORKSPACE_NOT_FOUND', `no registered workspace "${workspace}" (by name or folder); registered: ${config.config.workspaces.map((w) => w.name).join(', ') || '(none)'}`, { retryable: false });
}

function safeRealpath(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}
