import type { Db } from '../store/db.js';
import { ExtensionConfirmationsRepo } from '../store/extension-confirmations-repo.js';
import { ExtensionDescribesRepo } from '../store/extension-describes-repo.js';
import { McpApprovalsRepo } from '../store/mcp-approvals-repo.js';
import { SchemaValidator } from './schema-validator.js';

/** What `skill_tool`, `mcp_tool`, `mcp.approve`, the session inventory and doctor need (issue 13). */
export interface ExtensionServices {
  approvals: McpApprovalsRepo;
  describes: ExtensionDescribesRepo;
  confirmations: ExtensionConfirmationsRepo;
  validator: SchemaValidator;
  /** `<home>/skills`. */
  homeSkillsDir: string;
  /** The environment `${VAR}` in server entries is expanded from (the daemon's own). */
  env: NodeJS.ProcessEnv;
}

/** Wires the extension services once per daemon. */
export function createExtensionServices(db: Db, homeSkillsDir: string, env: NodeJS.ProcessEnv = process.env): ExtensionServices {
  return {
    approvals: new McpApprovalsRepo(db),
    describes: new ExtensionDescribesRepo(db),
    confirmations: new ExtensionConfirmationsRepo(db),
    validator: new SchemaValidator(),
    homeSkillsDir,
    env,
  };
}
