import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';
import type { artifactTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { ArtifactRow, ArtifactsRepo } from '../../store/artifacts-repo.js';

/** Parsed arguments of `artifact`. */
export type ArtifactArgs = z.output<typeof artifactTool.input>;

/** MCP resource URI of an artifact (issue 11). */
export function artifactUri(remoteSessionId: string, artifactId: string): string {
  return `holdfast://remote-sessions/${remoteSessionId}/artifacts/${artifactId}`;
}

/**
 * An artifact of this session (another session's is not found either).
 * @throws HoldfastError BAD_REQUEST without an id, ARTIFACT_NOT_FOUND.
 */
export function requireArtifact(repo: ArtifactsRepo, id: string | undefined, sessionId: string): ArtifactRow {
  if (id === undefined) throw new HoldfastError('BAD_REQUEST', 'this action needs artifact_id (the ar_… id from artifact(action="register") or action="list")');
  const row = isId('artifact', id) ? repo.get(id) : undefined;
  if (!row || row.session_id !== sessionId) {
    throw new HoldfastError('ARTIFACT_NOT_FOUND', `no artifact ${id} in session ${sessionId}; list them with artifact(action="list")`, { retryable: false });
  }
  return row;
}

/** An artifact's facts as `register` and `list` return them. */
export function artifactView(a: ArtifactRow): Record<string, unknown> {
  return {
    artifact_id: a.id,
    title: a.title,
    kind: a.kind,
    ...(a.source_path !== null ? { source_path: a.source_path } : {}),
    mime_type: a.mime_type,
    byte_length: a.byte_length,
    sha256: a.sha256,
    source_encoding: a.source_encoding,
    source_bom: a.source_bom === 1,
    created_at: a.created_at,
    uri: artifactUri(a.session_id, a.id),
  };
}
