import { accessSync, constants, openSync, readSync, closeSync } from 'node:fs';
import { extname } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import { LinkTimeouts } from '@holdfast/shared/protocol';
import type { ResolvedCall } from '../../execution/call.js';
import { refusedOutcomeFor } from '../../execution/policy-outcome.js';
import { argumentsDigest, argumentsPhrase, confirmationOutcome, confirmOrAsk } from '../../extensions/confirmation.js';
import { pathInSkill, type SkillEntry } from '../../extensions/skills/discovery.js';
import type { SkillManifest } from '../../extensions/skills/skill-file.js';
import { evaluateCommand, type PolicyVerdict } from '../../policy/commands.js';
import { effectiveCommandRules } from '../../policy/effective-rules.js';
import { displaySafe } from '../../policy/text-safety.js';
import type { SessionRow } from '../../store/sessions-repo.js';
import type { ToolContext } from '../context.js';
import type { ToolOutcome } from '../envelope.js';
import { DEFAULT_YIELD_MS, startArgvTask } from '../execute.js';
import type { SkillToolArgs } from './args.js';

/** Interpreters for entry scripts that are not executable themselves, by extension. */
const INTERPRETERS: Readonly<Record<string, string>> = {
  '.sh': 'bash',
  '.bash': 'bash',
  '.py': 'python3',
  '.js': 'node',
  '.mjs': 'node',
  '.cjs': 'node',
  '.rb': 'ruby',
  '.pl': 'perl',
};

/** Environment variables an entry script receives (names only ever reach the audit log). */
export const SKILL_ENV = {
  ARGUMENTS: 'HOLDFAST_SKILL_ARGUMENTS',
  DIR: 'HOLDFAST_SKILL_DIR',
  NAME: 'HOLDFAST_SKILL_NAME',
} as const;

const DECISION_RANK: Record<PolicyVerdict['decision'], number> = { allow: 0, confirm: 1, deny: 2 };

/**
 * `skill_tool(action="call")` of an executable skill (issue 13; docs/extensions.md): the
 * arguments are validated against the skill's `arguments` schema; the entry runs as an exact-argv
 * task in the session (its own process group, output in the task logs) in the workspace root, with
 * the arguments as JSON in `HOLDFAST_SKILL_ARGUMENTS` (never on the command line, which the audit
 * log and `ps` show). The command policy judges the entry (as the command itself and as run
 * through its interpreter): deny → `POLICY_DENIED`. Every run needs the user's confirmation
 * (bound to skill, folder revision, argument digest and purpose); then it starts like
 * `execute(argv=…)` and answers like it (an `execution_task_id` to attach to while it runs).
 */
export async function runSkill(args: SkillToolArgs, skill: SkillEntry & { manifest: SkillManifest }, revision: string, session: SessionRow, ctx: ToolContext): Promise<ToolOutcome> {
  const rs = session.id;
  const m = skill.manifest;
  const skillArgs = args.arguments ?? {};
  if (args.files !== undefined) throw new HoldfastError('BAD_REQUEST', `files is for document skills; skill ${skill.name} is executable — see its files with describe`, { retryable: false });
  if (m.arguments) {
    let problem: string | null;
    try {
      problem = ctx.services.extensions.validator.check(m.arguments, skillArgs);
    } catch (err) {
      throw new HoldfastError('BAD_REQUEST', `the arguments schema of skill ${skill.name} does not compile: ${(err as Error).message}`, { retryable: false });
    }
    if (problem !== null) throw new HoldfastError('BAD_REQUEST', `arguments do not match the schema of skill ${skill.name}: ${problem}; nothing ran`, { retryable: false });
  }
  const entry = pathInSkill(skill.dir, m.entry!);
  const argv = entryArgv(entry, skill.name);
  const purpose = args.purpose ?? null;
  const call: ResolvedCall = {
    origin: 'argv',
    kind: 'argv',
    command: null,
    argv,
    taskName: null,
    cwd: session.workspace_root,
    env: { [SKILL_ENV.ARGUMENTS]: JSON.stringify(skillArgs), [SKILL_ENV.DIR]: skill.dir, [SKILL_ENV.NAME]: skill.name },
    purpose,
    background: false,
    diagnostics: null,
    taskScripts: [],
  };
  const rules = effectiveCommandRules(ctx.services.config.config.security.commands, ctx.services.execution.projects.get(session.workspace_root));
  const judged = [evaluateCommand({ argv: [entry], env: call.env, cwd: session.workspace_root }, rules)];
  if (argv.length > 1) judged.push(evaluateCommand({ argv, env: call.env, cwd: session.workspace_root }, rules));
  const verdict = judged.reduce((a, b) => (DECISION_RANK[b.decision] > DECISION_RANK[a.decision] ? b : a));
  const argsSha = argumentsDigest(skillArgs);
  const audit = {
    principal: ctx.call.principal,
    remote_session_id: rs,
    skill: skill.name,
    revision,
    argv,
    arguments_sha256: argsSha,
    argument_names: Object.keys(skillArgs),
    ...(purpose ? { purpose } : {}),
    ...(ctx.call.request_id ? { request_id: ctx.call.request_id } : {}),
  };
  if (verdict.decision === 'deny') {
    try {
      ctx.services.execution.audit.append({ ...audit, event: 'skill.refused', decision: 'deny', reason: verdict.reason });
    } catch {
      // nothing runs either way
    }
    return refusedOutcomeFor('skill.refused', verdict, { remote_session_id: rs, ...(purpose ? { purpose } : {}) });
  }
  const rule = verdict.segments.find((s) => s.decision === 'confirm')?.rule;
  const summary = [
    `Run the skill ${skill.name} (${skill.source}): ${argv.map((a) => displaySafe(a)).join(' ')} in ${displaySafe(session.workspace_root)}`,
    argumentsPhrase(skillArgs),
    purpose ? ` — purpose: ${displaySafe(purpose)}` : '',
    rule ? ` (the command policy asks too: ${rule})` : '',
  ].join('');
  const confirm = confirmOrAsk(
    ctx.services.extensions.confirmations,
    ctx.services.execution.audit,
    { kind: 'skill', target: skill.name, revision, args: skillArgs, purpose, sessionId: rs, principal: ctx.call.principal, summary, userConfirmed: args.user_confirmed === true, ttlS: ctx.services.config.config.security.commands.confirm_ttl_s },
    audit,
    'skill.confirmation_requested',
  );
  if (!confirm.run) {
    const repeat = { action: 'call', remote_session_id: rs, skill: skill.name, ...(purpose ? { purpose } : {}) };
    return confirmationOutcome('skill.confirmation', 'skill_tool', repeat, confirm, { skill: skill.name, kind: 'executable', revision, policy: { decision: verdict.decision, ...(rule ? { rule } : {}) } }, { remote_session_id: rs, ...(purpose ? { purpose } : {}) });
  }
  ctx.services.execution.audit.append({ ...audit, event: 'skill.run', decision: 'confirm', confirmed: true, ...(confirm.confirmationId ? { confirmation_id: confirm.confirmationId } : {}) });
  // Waits like execute's default; a longer run answers `accepted` with the task to attach to.
  const yieldMs = Math.min(DEFAULT_YIELD_MS, LinkTimeouts.MAX_WAIT_MS, Math.max(1000, ctx.services.config.config.limits.request_timeout_ms - 5000));
  const ran = await startArgvTask(call, verdict, session, ctx, yieldMs);
  return {
    ...ran,
    envelope: { ...ran.envelope, type: 'skill.run', data: { skill: skill.name, revision, ...(ran.envelope.data ?? {}) } },
    text: `Skill ${skill.name}: ${ran.text}`,
  };
}

/**
 * How an entry runs: itself when it is executable, else through its `#!` line or the interpreter
 * of its extension (`.sh` bash, `.py` python3, `.js` node, …).
 * @throws HoldfastError BAD_REQUEST when none applies.
 */
export function entryArgv(entry: string, skill: string): string[] {
  try {
    accessSync(entry, constants.X_OK);
    return [entry];
  } catch {
    // not executable: find an interpreter
  }
  const shebang = firstLine(entry);
  if (shebang.startsWith('#!')) {
    const words = shebang.slice(2).trim().split(/\s+/).filter((w) => w.length > 0);
    if (words.length > 0) return [...words, entry];
  }
  const interpreter = INTERPRETERS[extname(entry).toLowerCase()];
  if (interpreter) return [interpreter, entry];
  throw new HoldfastError('BAD_REQUEST', `the entry of skill ${skill} (${entry}) is not executable, has no #! line and no known extension (${Object.keys(INTERPRETERS).join(' ')}); make it executable`, { retryable: false });
}

function firstLine(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
  } finally {
    closeSync(fd);
  }
}
