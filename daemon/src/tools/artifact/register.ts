import { closeSync, read } from 'node:fs';
import { promisify } from 'node:util';
import { WorkLimits } from '@holdfast/shared/constants';
import { HoldfastError } from '@holdfast/shared/errors';
import { newId } from '@holdfast/shared/ids';
import { openRegularFile } from '../../files/file-kind.js';
import type { ArtifactRow } from '../../store/artifacts-repo.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import { artifactFacts } from '../../work/artifact-store.js';
import type { ToolContext } from '../context.js';
import { outcome, type ToolOutcome } from '../envelope.js';
import { openWorkspace, resolveForRead } from '../file-access.js';
import { accessSession } from '../session-access.js';
import { artifactView, type ArtifactArgs } from './common.js';

const readAsync = promisify(read);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function tooLarge(bytes: number): HoldfastError {
  return new HoldfastError('FILE_TOO_LARGE', `an artifact holds at most ${WorkLimits.ARTIFACT_MAX_BYTES} bytes (this is ${bytes})`, { retryable: false });
}

/** Reads a workspace file for a snapshot (policy-checked, regular files only). */
async function fileBytes(ctx: ToolContext, remoteSessionId: string, path: string): Promise<{ session: SessionRow; rel: string; bytes: Buffer }> {
  const ws = openWorkspace(ctx, remoteSessionId, 'editor');
  const p = resolveForRead(ws, path);
  const { fd, st } = openRegularFile(p.real, p.rel, p.root);
  try {
    if (st.size > WorkLimits.ARTIFACT_MAX_BYTES) throw tooLarge(st.size);
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await readAsync(fd, buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return { session: ws.session, rel: p.rel, bytes: buf.subarray(0, got) };
  } finally {
    closeSync(fd);
  }
}

/**
 * `artifact(action="register")` (issue 11): snapshots a workspace file (`path`: inside the
 * workspace, allowed by the file policy, a regular file) or inline content (`content` as UTF-8
 * text, `content_base64` as bytes) into `state/artifacts/`, with a `title` and a `kind`. Records
 * sha256, byte length, source charset and BOM (the same detection `read` uses) and a MIME type
 * (`mime_type` overrides the detected one). The bytes are on disk (fsynced) and the row committed
 * before the result is returned; later edits of the workspace never change the artifact.
 * @throws HoldfastError BAD_REQUEST, SESSION_NOT_FOUND, SESSION_EXITED (path needs a live session),
 *   PATH_*, POLICY_DENIED, UNSUPPORTED_FILE_TYPE, FILE_TOO_LARGE.
 */
export async function registerArtifact(args: ArtifactArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const sources = [args.path, args.content, args.content_base64].filter((x) => x !== undefined).length;
  if (sources !== 1) throw new HoldfastError('BAD_REQUEST', 'register needs exactly one of path (a workspace file), content (text) or content_base64 (bytes)');
  if (!args.title) throw new HoldfastError('BAD_REQUEST', 'register needs title');
  if (!args.kind || !/^[a-z0-9_-]{1,40}$/.test(args.kind)) throw new HoldfastError('BAD_REQUEST', 'register needs kind: a short lowercase word such as report, patch, log, image, data');
  let session: SessionRow;
  let bytes: Buffer;
  let rel: string | null = null;
  if (args.path !== undefined) {
    ({ session, rel, bytes } = await fileBytes(ctx, args.remote_session_id, args.path));
  } else {
    session = accessSession(ctx.services, ctx.call.principal, args.remote_session_id, 'editor');
    if (args.content !== undefined) {
      bytes = Buffer.from(args.content, 'utf8');
    } else {
      const b64 = args.content_base64!.replace(/\s+/g, '');
      if (b64.length % 4 !== 0 || !BASE64.test(b64)) throw new HoldfastError('BAD_REQUEST', 'content_base64 is not valid base64');
      bytes = Buffer.from(b64, 'base64');
    }
    if (bytes.length > WorkLimits.ARTIFACT_MAX_BYTES) throw tooLarge(bytes.length);
  }
  const facts = artifactFacts(bytes, rel);
  const { work } = ctx.services;
  const row: ArtifactRow = {
    id: newId('artifact'),
    session_id: session.id,
    workspace: session.workspace,
    title: args.title,
    kind: args.kind,
    source_path: rel,
    mime_type: args.mime_type ?? facts.mime_type,
    byte_length: facts.byte_length,
    sha256: facts.sha256,
    source_encoding: facts.source_encoding,
    source_bom: facts.source_bom ? 1 : 0,
    created_at: Date.now(),
  };
  await work.store.save(session.id, row.id, bytes);
  work.artifacts.insert(row);
  const view = artifactView(row);
  const text = `Registered artifact ${row.id} "${row.title}" (${row.kind}, ${row.mime_type}, ${row.byte_length} bytes, sha256 ${row.sha256.slice(0, 12)}…${rel !== null ? `, from ${rel}` : ''}); resource ${view.uri as string}`;
  const o = outcome('artifact.registered', 'succeeded', view, text, { context: { remote_session_id: session.id } });
  o.extraContent = [{ type: 'resource_link', uri: view.uri as string, name: row.title, mimeType: row.mime_type, description: `${row.kind} artifact ${row.id}` }];
  o.event = { data: { target: row.title, artifact_id: row.id, ...(rel !== null ? { paths: [rel] } : {}) } };
  return o;
}
