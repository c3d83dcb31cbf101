import type { ControlParsedParams, ControlResult } from '@holdfast/shared/control';
import { WorkLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { artifactUri, requireArtifact } from '../tools/artifact/common.js';
import type { ToolServices } from '../tools/context.js';
import { accessSession } from '../tools/session-access.js';
import { artifactPage } from '../work/artifact-page.js';

/** The URI template of artifacts (issue 11). */
export const ARTIFACT_TEMPLATE = 'holdfast://remote-sessions/{remote_session_id}/artifacts/{artifact_id}';
const URI = /^holdfast:\/\/remote-sessions\/([^/]+)\/artifacts\/([^/]+)$/;
/** Artifacts listed per session in `resources/list`. */
const LISTED_PER_SESSION = 50;

/** The template as `resources/templates/list` shows it. */
export const artifactTemplate = {
  uriTemplate: ARTIFACT_TEMPLATE,
  name: 'artifacts',
  title: 'Artifacts',
  description: 'A registered artifact: text (UTF-8, UTF-16) as text, anything else as base64 blob; the first 4 MiB of the source (page the rest with artifact(action="read"))',
};

/** True when `uri` has the shape of an artifact URI. */
export function isArtifactUri(uri: string): boolean {
  return URI.test(uri);
}

function checkTools(allowed: string[] | undefined): void {
  if (allowed && !allowed.includes('artifact')) throw new HoldfastError('TOOL_NOT_ALLOWED', 'artifacts need the artifact tool');
}

/** `resource.list` part: recent artifacts of the principal's live sessions. */
export async function listArtifacts(p: ControlParsedParams<'resource.list'>, s: ToolServices): Promise<ControlResult<'resource.list'>['resources']> {
  if (p.allowed_tools && !p.allowed_tools.includes('artifact')) return [];
  const out: ControlResult<'resource.list'>['resources'] = [];
  for (const view of (await s.sessions.list(false)).filter((v) => v.principal === p.principal)) {
    for (const a of s.work.artifacts.listForSession(view.remote_session_id, LISTED_PER_SESSION)) {
      out.push({ uri: artifactUri(a.session_id, a.id), name: a.id, title: a.title, description: `${a.kind} artifact, ${a.byte_length} bytes`, mimeType: a.mime_type });
    }
  }
  return out;
}

/**
 * `resource.read` of an artifact (issue 11): the artifact of one of the caller's sessions (the
 * session resolved through `accessSession`), text artifacts decoded as `text`, others as base64
 * `blob`, at most {@link WorkLimits.ARTIFACT_RESOURCE_MAX_BYTES} source bytes (a note says how to
 * page the rest; a larger binary artifact is described instead of cut).
 * @throws HoldfastError SESSION_NOT_FOUND, ARTIFACT_NOT_FOUND, TOOL_NOT_ALLOWED.
 */
export function readArtifact(p: ControlParsedParams<'resource.read'>, s: ToolServices): ControlResult<'resource.read'> {
  checkTools(p.allowed_tools);
  const m = URI.exec(p.uri)!;
  const session = accessSession(s, p.principal, decodeURIComponent(m[1]!));
  const row = requireArtifact(s.work.artifacts, decodeURIComponent(m[2]!), session.id);
  let file;
  try {
    file = s.work.store.open(session.id, row.id);
  } catch {
    throw new HoldfastError('ARTIFACT_NOT_FOUND', `the bytes of artifact ${row.id} are gone`);
  }
  try {
    const max = WorkLimits.ARTIFACT_RESOURCE_MAX_BYTES;
    const page = artifactPage(row.source_encoding, row.source_bom === 1, file.size, 0, max, file.read);
    const more = page.next_source_offset !== null ? `\n[${file.size - page.next_source_offset} more bytes: artifact(action="read", artifact_id="${row.id}", source_offset=${page.next_source_offset})]` : '';
    if (page.text !== undefined) return { contents: [{ uri: p.uri, mimeType: row.mime_type, text: page.text + more }] };
    if (page.next_source_offset === null) return { contents: [{ uri: p.uri, mimeType: row.mime_type, blob: page.base64! }] };
    return { contents: [{ uri: p.uri, mimeType: 'text/plain', text: `Artifact ${row.id} "${row.title}" is ${row.byte_length} bytes of ${row.mime_type}; read it in pages with artifact(action="read", artifact_id="${row.id}")` }] };
  } finally {
    file.close();
  }
}
