import { readFileSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { ToolCallResult } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { pathInSkill, type SkillEntry } from '../../extensions/skills/discovery.js';
import type { SkillManifest } from '../../extensions/skills/skill-file.js';
import { mimeTypeOf } from '../../files/mime.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import { action, outcome, type ToolOutcome } from '../envelope.js';
import type { SkillToolArgs } from './args.js';

/** Files returned by one document-skill call: how many, each at most and all together at most (bytes). */
export const SkillFileLimits = {
  FILES_MAX: 20,
  FILE_MAX_BYTES: 256 * 1024,
  TOTAL_MAX_BYTES: 1024 * 1024,
} as const;

/**
 * `skill_tool(action="call")` of a document skill (issue 13): no confirmation (nothing runs).
 * Content: a short header, the instructions in a text block of their own (byte for byte as in
 * `SKILL.md` after the front matter), then each file named in `files` as an embedded resource
 * (`file://` URI; text, or base64 `blob` for binary files).
 * @throws HoldfastError BAD_REQUEST (`arguments` given), PATH_NOT_FOUND / PATH_OUTSIDE_WORKSPACE
 *   (a named file), FILE_TOO_LARGE (beyond {@link SkillFileLimits}).
 */
export function documentSkill(args: SkillToolArgs, skill: SkillEntry & { manifest: SkillManifest }, revision: string, session: SessionRow): ToolOutcome {
  if (args.arguments !== undefined && Object.keys(args.arguments).length > 0) {
    throw new HoldfastError('BAD_REQUEST', `skill ${skill.name} is a document skill (no entry script): it takes no arguments; its instructions say what to do`, { retryable: false });
  }
  if ((args.files ?? []).length > SkillFileLimits.FILES_MAX) throw new HoldfastError('BAD_REQUEST', `name at most ${SkillFileLimits.FILES_MAX} files per call`, { retryable: false });
  const blocks: ToolCallResult['content'] = [];
  const files: { path: string; bytes: number; mime_type: string }[] = [];
  let total = 0;
  for (const rel of args.files ?? []) {
    const real = pathInSkill(skill.dir, rel);
    const st = statSync(real);
    if (!st.isFile()) throw new HoldfastError('BAD_REQUEST', `${rel} is not a file of skill ${skill.name}`, { retryable: false });
    if (st.size > SkillFileLimits.FILE_MAX_BYTES || total + st.size > SkillFileLimits.TOTAL_MAX_BYTES) {
      throw new HoldfastError('FILE_TOO_LARGE', `${rel} (${st.size} bytes) would take the files of this call past ${SkillFileLimits.FILE_MAX_BYTES} bytes each or ${SkillFileLimits.TOTAL_MAX_BYTES} in all; read it with read() instead`, { retryable: false });
    }
    const bytes = readFileSync(real);
    total += bytes.length;
    const text = bytes.toString('utf8');
    const isText = !bytes.includes(0) && Buffer.from(text, 'utf8').equals(bytes);
    const mime = mimeTypeOf(real, bytes.subarray(0, 8192), isText);
    const uri = pathToFileURL(real).href;
    blocks.push({ type: 'resource', resource: isText ? { uri, mimeType: mime, text } : { uri, mimeType: mime, blob: bytes.toString('base64') } });
    files.push({ path: rel, bytes: bytes.length, mime_type: mime });
  }
  const rs = session.id;
  const header = `Skill ${skill.name} (document, revision ${revision}): the next content block holds its instructions${files.length ? `, then ${files.length} file(s): ${files.map((f) => f.path).join(', ')}` : ''}.`;
  return {
    ...outcome('skill.document', 'succeeded', { skill: skill.name, kind: 'document', revision, instructions_bytes: skill.manifest.body.length, files }, header, {
      context: { remote_session_id: rs, ...(args.purpose ? { purpose: args.purpose } : {}) },
      actions: [action('skill_tool', { action: 'describe', remote_session_id: rs, skill: skill.name }, 'list the skill’s files')],
    }),
    extraContent: [{ type: 'text', text: skill.manifest.body.toString('utf8') }, ...blocks],
  };
}
