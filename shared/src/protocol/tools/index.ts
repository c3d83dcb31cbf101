import { createHash } from 'node:crypto';
import type { ToolProfileName } from '../../config/schema.js';
import type { ToolDef } from './envelope.js';
import { artifactTool } from './artifact.js';
import { editTool } from './edit.js';
import { environmentReadTool, environmentTool } from './environment.js';
import { executeTool } from './execute.js';
import { toolListing } from './json-schema.js';
import { mcpTool } from './mcp-tool.js';
import { moveOutTool } from './move-out.js';
import { observeTool } from './observe.js';
import { operationBatchTool } from './operation-batch.js';
import { operationManageTool } from './operation-manage.js';
import { planTool } from './plan.js';
import { progressTool } from './progress.js';
import { readTool } from './read.js';
import { runtimeReadTool } from './runtime-read.js';
import { secretProvideTool } from './secret-provide.js';
import { sessionTool } from './session.js';
import { skillTool } from './skill-tool.js';
import { withWorkTracking } from './work-tracking.js';
import { workspaceTool } from './workspace.js';
import { desktopActionTool } from './desktop-action.js';
import { desktopConnectTool } from './desktop-connect.js';
import { desktopDisconnectTool } from './desktop-disconnect.js';
import { desktopGetSessionTool } from './desktop-get-session.js';
import { desktopListDevicesTool } from './desktop-list-devices.js';
import { desktopOpenTool } from './desktop-open.js';
import { desktopOpenBrowserTool } from './desktop-open-browser.js';
import { desktopScreenshotTool } from './desktop-screenshot.js';
import { desktopSelectDisplayTool } from './desktop-select-display.js';
import { desktopSetControlTool } from './desktop-set-control.js';
import { screenshotCaptureTool } from './screenshot-capture.js';

export * from './envelope.js';
export * from './json-schema.js';
export * from './action-rules.js';
export * from './catalog-rules.js';
export * from './read.js';
export * from './edit.js';
export * from './move-out.js';
export * from './observe.js';
export { GrantableRole } from './session.js';
export * from './plan.js';
export * from './progress.js';
export * from './artifact.js';
export * from './work-tracking.js';
export * from './desktop-panel.js';
export * from './operation-batch.js';
export * from './operation-manage.js';
export * from './environment.js';
export * from './secret-provide.js';
export { executeTool, mcpTool, observeTool, runtimeReadTool, sessionTool, skillTool, workspaceTool };
export {
  desktopActionTool,
  desktopConnectTool,
  desktopDisconnectTool,
  desktopGetSessionTool,
  desktopListDevicesTool,
  desktopOpenTool,
  desktopOpenBrowserTool,
  desktopScreenshotTool,
  desktopSelectDisplayTool,
  desktopSetControlTool,
  screenshotCaptureTool,
};

/** The desktop tools (issues 15, 16), in catalogue order. */
export const DESKTOP_TOOLS: readonly ToolDef[] = [
  desktopListDevicesTool,
  desktopConnectTool,
  desktopOpenTool,
  desktopOpenBrowserTool,
  desktopGetSessionTool,
  desktopScreenshotTool,
  desktopActionTool,
  desktopSetControlTool,
  desktopSelectDisplayTool,
  desktopDisconnectTool,
];

/**
 * The tool catalogue (DESIGN §6.4): only tools that are served end to end are listed here.
 * The adapter registers these schemas; the daemon parses arguments with the same ones. Every
 * session tool gets the work-tracking arguments (`activity`, `plan_id`, `plan_task_id`; issue 11)
 * here, once — add new tools to this list and they have them too.
 */
export const TOOLS: readonly ToolDef[] = [
  workspaceTool, sessionTool, readTool, editTool, moveOutTool, executeTool, observeTool, runtimeReadTool, progressTool, planTool, artifactTool, skillTool, mcpTool,
  operationBatchTool, operationManageTool, environmentTool, environmentReadTool, secretProvideTool,
  ...DESKTOP_TOOLS, screenshotCaptureTool,
].map(withWorkTracking);

import { RESERVED_TOOL_NAMES } from './constants.js';
export { RESERVED_TOOL_NAMES };

/** Profiles (DESIGN §6.4): which tool names each includes. */
export const PROFILES: Readonly<Record<ToolProfileName, readonly string[]>> = {
  'read-only': ['workspace', 'session', 'read', 'observe', 'runtime_read', 'environment_read'],
  terminal: ['workspace', 'session', 'execute', 'observe'],
  coding: ['workspace', 'session', 'read', 'observe', 'runtime_read', 'environment_read', 'edit', 'execute', 'move_out', 'progress'],
  full: RESERVED_TOOL_NAMES,
  // Issue 15: the desktop tools, `session`, and `workspace` (session(open) names a workspace).
  desktop: ['workspace', 'session', ...DESKTOP_TOOLS.map((t) => t.name)],
};

/** Looks up a served tool by name. */
export function findTool(name: string): ToolDef | undefined {
  return TOOLS.find((t) => t.name === name);
}

let revision: string | undefined;

/**
 * Tool-schema revision (issue 3 `runtime_read`): sha256 over every served tool's `tools/list`
 * entry (name, description, annotations, JSON Schemas), so a client can tell when its cached
 * catalogue is stale.
 */
export function toolSchemaRevision(): string {
  revision ??= createHash('sha256').update(JSON.stringify(TOOLS.map(toolListing))).digest('hex').slice(0, 16);
  return revision;
}
