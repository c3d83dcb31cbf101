import { WorkLimits } from '@holdfast/shared/constants';
import { OutputLimits } from '@holdfast/shared/protocol';
import { HoldfastError } from '@holdfast/shared/errors';
import { artifactPage } from '../../work/artifact-page.js';
import type { ToolContext } from '../context.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import { accessSession } from '../session-access.js';
import { artifactView, requireArtifact, type ArtifactArgs } from './common.js';
import { registerArtifact } from './register.js';

/** Artifacts listed at most. */
const LIST_MAX = 200;

/** `artifact` (issue 11, DESIGN §6.4): register, list, read. */
export async function artifactHandler(args: ArtifactArgs, ctx: ToolContext): Promise<ToolOutcome> {
  switch (args.action) {
    case 'register':
      return registerArtifact(args, ctx);
    case 'list':
      return listArtifacts(args, ctx);
    case 'read':
      return readArtifact(args, ctx);
  }
}

function listArtifacts(args: ArtifactArgs, ctx: ToolContext): ToolOutcome {
  const session = accessSession(ctx.services, ctx.call.principal, args.remote_session_id);
  const rows = ctx.services.work.artifacts.listForSession(session.id, LIST_MAX);
  const lines = rows.map((a) => `${a.id} ${a.kind} "${a.title}" ${a.mime_type} ${a.byte_length} bytes`);
  return outcome('artifact.list', 'succeeded', { artifacts: rows.map(artifactView) }, `${rows.length} artifact(s)${rows.length > 0 ? `\n${lines.join('\n')}` : ''}`, {
    context: { remote_session_id: session.id },
  });
}

/**
 * `artifact(action="read")` (issue 11): one page from `source_offset` (bytes of the source, BOM
 * included; default 0) covering at most `limit` source bytes (default 1 MiB, at most 4 MiB). Text
 * artifacts (UTF-8, UTF-16 with or without BOM) come as `text` (`delivery_encoding: "utf-8"`)
 * in whole characters — the page moves back to a character start and ends before a split one —
 * anything else as `base64`. `next_source_offset` (null at the end) continues.
 * @throws HoldfastError ARTIFACT_NOT_FOUND, BAD_REQUEST (limit or offset out of range).
 */
function readArtifact(args: ArtifactArgs, ctx: ToolContext): ToolOutcome {
  const session = accessSession(ctx.services, ctx.call.principal, args.remote_session_id);
  const row = requireArtifact(ctx.services.work.artifacts, args.artifact_id, session.id);
  const limit = args.limit ?? WorkLimits.ARTIFACT_PAGE_DEFAULT_BYTES;
  if (limit > WorkLimits.ARTIFACT_PAGE_MAX_BYTES) throw new HoldfastError('BAD_REQUEST', `limit is at most ${WorkLimits.ARTIFACT_PAGE_MAX_BYTES} bytes per page`);
  const offset = args.source_offset ?? 0;
  if (offset > row.byte_length) throw new HoldfastError('BAD_REQUEST', `source_offset ${offset} is beyond the artifact's ${row.byte_length} bytes`);
  let file;
  try {
    file = ctx.services.work.store.open(session.id, row.id);
  } catch {
    throw new HoldfastError('ARTIFACT_NOT_FOUND', `the bytes of artifact ${row.id} are gone (removed by retention)`, { retryable: false });
  }
  let page;
  try {
    page = artifactPage(row.source_encoding, row.source_bom === 1, file.size, offset, limit, file.read);
  } finally {
    file.close();
  }
  const data = { artifact_id: row.id, title: row.title, mime_type: row.mime_type, byte_length: row.byte_length, sha256: row.sha256, source_encoding: row.source_encoding, source_bom: row.source_bom === 1, ...page };
  const range = `bytes ${page.source_offset}..${page.source_offset + page.source_bytes} of ${row.byte_length}`;
  let text: string;
  if (page.text !== undefined) {
    const shown = Buffer.byteLength(page.text) > OutputLimits.TEXT_BLOCK_MAX_BYTES ? `${Buffer.from(page.text).subarray(0, OutputLimits.TEXT_BLOCK_MAX_BYTES).toString('utf8').replace(/\uFFFD+$/, '')}\n[… the whole page is in structuredContent.data.text]` : page.text;
    text = `${row.id} "${row.title}" (${row.source_encoding}${row.source_bom ? '+BOM' : ''} text), ${range}:\n${shown}`;
  } else {
    text = `${row.id} "${row.title}" (${row.mime_type}), ${range}: ${page.source_bytes} bytes as base64 in structuredContent.data.base64`;
  }
  const actions =
    page.next_source_offset !== null
      ? [action('artifact', { action: 'read', remote_session_id: session.id, artifact_id: row.id, source_offset: page.next_source_offset, ...(args.limit ? { limit: args.limit } : {}) }, 'read the next page')]
      : [];
  return outcome('artifact.read', 'succeeded', data, text, { context: { remote_session_id: session.id }, actions });
}
