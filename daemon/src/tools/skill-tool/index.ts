import { HoldfastError } from '@holdfast/shared/errors';
import { discoverSkills, readSkillFolder, requireSkill, skillRoots, type SkillRoot } from '../../extensions/skills/discovery.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import { checkPurpose } from '../../extensions/confirmation.js';
import type { ToolContext } from '../context.js';
import { action, failure, outcome, type ToolOutcome } from '../envelope.js';
import type { SkillToolArgs } from './args.js';
import { documentSkill } from './document.js';
import { requireSessionAccess } from '../../sessions/access.js';
import { runSkill } from './run.js';

/** The skill folders of a session: the home's, then its workspace's (issue 13). */
export function sessionSkillRoots(session: SessionRow, ctx: ToolContext): SkillRoot[] {
  return skillRoots(ctx.services.extensions.homeSkillsDir, session.workspace_root);
}

/**
 * `skill_tool` (issue 13; docs/extensions.md): `list` → every skill (name, description, kind);
 * `describe` → instructions (a text block of their own, byte for byte), arguments schema, files and
 * revision, recorded for this session; `call` → a document skill's instructions and named files, or
 * an executable skill run as a task (run.ts). A `call` after the folder changed since this
 * session's `describe` answers `SKILL_REVISION_CHANGED` with a describe action.
 */
export async function skillToolHandler(args: SkillToolArgs, ctx: ToolContext): Promise<ToolOutcome> {
  const { session } = requireSessionAccess(ctx, args.remote_session_id, args.action === 'call' ? 'editor' : 'viewer');
  checkPurpose(args.purpose);
  const roots = sessionSkillRoots(session, ctx);
  const rs = session.id;
  if (args.action === 'list') {
    const skills = discoverSkills(roots).map((s) => ({ name: s.name, description: s.manifest?.description ?? '', kind: s.kind, ...(s.error ? { error: s.error } : {}) }));
    const lines = skills.map((s) => `${s.name} (${s.kind}) — ${s.description || s.error}`);
    return outcome('skill.list', 'succeeded', { skills }, skills.length > 0 ? `${skills.length} skill(s):\n${lines.join('\n')}` : 'No skills: put folders with a SKILL.md in <home>/skills, .holdfast/skills or .claude/skills.', {
      context: { remote_session_id: rs },
      actions: skills.length > 0 ? [action('skill_tool', { action: 'describe', remote_session_id: rs, skill: skills[0]!.name }, 'read a skill’s instructions')] : [],
    });
  }
  if (args.skill === undefined) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs skill (see skill_tool(action="list"))`);
  const skill = requireSkill(roots, args.skill);
  const folder = readSkillFolder(skill.dir);
  const describeAction = action('skill_tool', { action: 'describe', remote_session_id: rs, skill: skill.name }, 'read the skill again');
  if (args.action === 'describe') {
    ctx.services.extensions.describes.put(rs, 'skill', skill.name, folder.revision);
    const m = skill.manifest;
    const data = {
      skill: skill.name,
      kind: skill.kind,
      source: skill.source,
      description: m.description,
      revision: folder.revision,
      arguments_schema: m.arguments,
      ...(m.entry ? { entry: m.entry } : {}),
      files: folder.files.map((f) => ({ path: f.path, bytes: f.bytes })),
      instructions_bytes: m.body.length,
    };
    const header = `Skill ${skill.name} (${skill.kind}, revision ${folder.revision}, ${skill.source}): ${m.description}\nfiles: ${data.files.map((f) => f.path).join(', ')}${m.arguments ? `\narguments schema: ${JSON.stringify(m.arguments)}` : ''}\nThe next content block holds the instructions.`;
    return {
      ...outcome('skill.describe', 'succeeded', data, header, {
        context: { remote_session_id: rs },
        actions: [action('skill_tool', { action: 'call', remote_session_id: rs, skill: skill.name }, skill.kind === 'executable' ? 'run it (with arguments)' : 'get its instructions and files')],
      }),
      extraContent: [{ type: 'text', text: m.body.toString('utf8') }],
    };
  }
  const described = ctx.services.extensions.describes.get(rs, 'skill', skill.name);
  if (described !== undefined && described !== folder.revision) {
    return failure('skill.call', new HoldfastError('SKILL_REVISION_CHANGED', `the skill ${skill.name} changed since you described it (revision ${described} → ${folder.revision}); nothing ran. Describe it again`, { retryable: false }), {
      context: { remote_session_id: rs },
      data: { skill: skill.name, described_revision: described, revision: folder.revision },
      actions: [describeAction],
    });
  }
  return skill.kind === 'executable' ? runSkill(args, skill, folder.revision, session, ctx) : documentSkill(args, skill, folder.revision, session);
}
