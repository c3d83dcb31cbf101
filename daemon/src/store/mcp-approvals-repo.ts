import type { Db } from './db.js';

/** One approved workspace `.mcp.json` server (issue 13). */
export interface McpApprovalRow {
  workspace_root: string;
  name: string;
  /** sha256 of the entry as written (RFC 8785 canonical JSON). */
  entry_sha256: string;
  approved_at: number;
}

/** `mcp_approvals`: which workspace-defined servers the user approved, and as which entry. */
export class McpApprovalsRepo {
  private readonly getStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string], McpApprovalRow>('SELECT * FROM mcp_approvals WHERE workspace_root = ? AND name = ?');
    this.putStmt = db.prepare(
      `INSERT INTO mcp_approvals (workspace_root, name, entry_sha256, approved_at) VALUES (@workspace_root, @name, @entry_sha256, @approved_at)
       ON CONFLICT (workspace_root, name) DO UPDATE SET entry_sha256 = excluded.entry_sha256, approved_at = excluded.approved_at`,
    );
  }

  get(workspaceRoot: string, name: string): McpApprovalRow | undefined {
    return this.getStmt.get(workspaceRoot, name);
  }

  /** True when `name` of `workspaceRoot` is approved exactly as `entrySha256`. */
  isApproved(workspaceRoot: string, name: string, entrySha256: string): boolean {
    return this.get(workspaceRoot, name)?.entry_sha256 === entrySha256;
  }

  put(row: McpApprovalRow): void {
    this.putStmt.run(row);
  }
}
