import type { HoldfastConfig } from '@holdfast/shared/config';
import type { UpstreamState } from '@holdfast/shared/protocol';
import type { McpApprovalsRepo } from '../store/mcp-approvals-repo.js';
import { serverViews, type ServerView } from './mcp/servers.js';
import { discoverSkills, skillRoots, type SkillEntry } from './skills/discovery.js';

/** Compact extension state (issue 13): names, descriptions, kinds and states — never schemas. */
export interface ExtensionInventory {
  skills: { name: string; description: string; kind: SkillEntry['kind'] }[];
  mcp_servers: { name: string; description: string; state: ServerView['state'] }[];
}

/** What the inventory of one workspace is built from. */
export interface InventoryScope {
  config: HoldfastConfig;
  approvals: McpApprovalsRepo;
  env: NodeJS.ProcessEnv;
  homeSkillsDir: string;
  workspaceName: string;
  workspaceRoot: string;
}

/** Skills and servers of a workspace in full (doctor), with `live` guardian states merged in. */
export function workspaceExtensions(s: InventoryScope, live: UpstreamState[]): { skills: SkillEntry[]; servers: ServerView[] } {
  return {
    skills: discoverSkills(skillRoots(s.homeSkillsDir, s.workspaceRoot)),
    servers: serverViews({ config: s.config, workspaceRoot: s.workspaceRoot, workspaceName: s.workspaceName, approvals: s.approvals, env: s.env }, live),
  };
}

/** The compact inventory `session(open)` returns. */
export function compactInventory(x: { skills: SkillEntry[]; servers: ServerView[] }): ExtensionInventory {
  return {
    skills: x.skills.map((k) => ({ name: k.name, description: k.manifest?.description ?? k.error ?? '', kind: k.kind })),
    mcp_servers: x.servers.map((v) => ({ name: v.name, description: v.description, state: v.state })),
  };
}
