import type { ControlParsedParams, ControlResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { DESKTOP_APP_URI, MCP_APP_MIME_TYPE, parseDesktopViewUri } from '@holdfast/shared/tool-constants';
import type { ToolServices } from '../tools/context.js';
import { artifactTemplate, isArtifactUri, listArtifacts, readArtifact } from './artifacts.js';
import { listTaskLogs, readTaskLog, resourceTemplates as taskLogTemplates } from './task-logs.js';

/** `resource.templates`: task logs (issue 5) and artifacts (issue 11). */
export function resourceTemplates(): ControlResult<'resource.templates'> {
  return { resourceTemplates: [...taskLogTemplates().resourceTemplates, artifactTemplate] };
}

/** The MCP Apps view of the desktop tools (issue 16), for principals that may call `desktop_open`. */
const desktopApp = { uri: DESKTOP_APP_URI, name: 'desktop.html', title: 'holdfast desktop panel', description: 'Live view of a desktop the agent uses, with a pause button', mimeType: MCP_APP_MIME_TYPE };
const mayUseDesktop = (allowed: string[] | undefined): boolean => !allowed || allowed.includes('desktop_open');

/** `resource.list`: the caller's task logs and artifacts, and the desktop view app (issue 16). */
export async function listResources(p: ControlParsedParams<'resource.list'>, s: ToolServices): Promise<ControlResult<'resource.list'>> {
  const logs = await listTaskLogs(p, s).catch(() => ({ resources: [] }));
  return { resources: [...logs.resources, ...(await listArtifacts(p, s)), ...(mayUseDesktop(p.allowed_tools) ? [desktopApp] : [])] };
}

/**
 * `resource.read`: dispatches on the URI's shape (an unknown shape is the task-log reader's
 * BAD_REQUEST). Issue 16: `ui://holdfast/desktop.html` and the desktop view the app reads.
 */
export async function readResource(p: ControlParsedParams<'resource.read'>, s: ToolServices): Promise<ControlResult<'resource.read'>> {
  const view = parseDesktopViewUri(p.uri);
  if (p.uri === DESKTOP_APP_URI || view) {
    if (!mayUseDesktop(p.allowed_tools)) throw new HoldfastError('TOOL_NOT_ALLOWED', 'this principal may not use the desktop tools', { retryable: false });
    return view ? s.desktopPanel.appView(view.remote_session_id, p.principal, view.view_id) : s.desktopPanel.appResource();
  }
  return isArtifactUri(p.uri) ? readArtifact(p, s) : readTaskLog(p, s);
}
