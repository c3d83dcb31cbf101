import type { ControlParsedParams, ControlResult } from '@holdfast/shared/control';
import type { ToolServices } from '../tools/context.js';
import { artifactTemplate, isArtifactUri, listArtifacts, readArtifact } from './artifacts.js';
import { listTaskLogs, readTaskLog, resourceTemplates as taskLogTemplates } from './task-logs.js';

/** `resource.templates`: task logs (issue 5) and artifacts (issue 11). */
export function resourceTemplates(): ControlResult<'resource.templates'> {
  return { resourceTemplates: [...taskLogTemplates().resourceTemplates, artifactTemplate] };
}

/** `resource.list`: the caller's task logs and artifacts. */
export async function listResources(p: ControlParsedParams<'resource.list'>, s: ToolServices): Promise<ControlResult<'resource.list'>> {
  const logs = await listTaskLogs(p, s).catch(() => ({ resources: [] }));
  return { resources: [...logs.resources, ...(await listArtifacts(p, s))] };
}

/** `resource.read`: dispatches on the URI's shape (an unknown shape is the task-log reader's BAD_REQUEST). */
export async function readResource(p: ControlParsedParams<'resource.read'>, s: ToolServices): Promise<ControlResult<'resource.read'>> {
  return isArtifactUri(p.uri) ? readArtifact(p, s) : readTaskLog(p, s);
}
