import type { SessionView } from '@holdfast/shared/control';
import type { GuardianStatus } from '@holdfast/shared/protocol';
import { HoldfastError } from '@holdfast/shared/errors';
import { describeRcSkipped } from '@holdfast/shared/protocol';
import type { ResultAction, sessionTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { requireSessionAccess } from '../sessions/access.js';
import { grantRole, handOff, revokeRole, type RoleChange } from '../sessions/roles.js';
import { compactInventory, type ExtensionInventory } from '../extensions/inventory.js';
import { discoverSkills } from '../extensions/skills/discovery.js';
import type { ToolContext } from './context.js';
import { liveServerViews } from './mcp-tool/upstream-link.js';
import { sessionSkillRoots } from './skill-tool/index.js';
import { action, callText, failure, outcome, type ToolOutcome } from './envelope.js';
import { progressView } from './progress.js';

type Args = z.output<typeof sessionTool.input>;

const GUIDE =
  'Pass remote_session_id verbatim to every tool. The shell keeps cwd and env between commands. ' +
  'execute(command) returns output and exit_code, or an execution_task_id to attach to when it runs longer than yield_time_ms. ' +
  'If the connection drops, call session(action="open", remote_session_id=…) to resume: nothing is lost.';

/**
 * `session` (DESIGN §4.2, issue 3): open (attach-or-create), resume by id, close, reset_shell.
 * The conversation id for `conversation` affinity is, in order: the transport session
 * (`Mcp-Session-Id`), the `X-Holdfast-Conversation-Id` header, the `conversation_id` argument.
 * Resuming a session that has ended is a `SESSION_EXITED` failure (type `session.exited`) whose
 * action opens a new session on the same workspace. Open says where the shell is now (`cwd`,
 * issue 8); reset_shell reports the shell that shows the first prompt (its pid after any `--norc`
 * fallback).
 *
 * Roles (issue 14): resuming by id needs any role on the session; reset_shell needs editor;
 * close, grant, revoke and handoff are the owner's (sessions/roles.ts). close and reset_shell act
 * on the shell, so they also need `execute` in the principal's tool set (else TOOL_NOT_ALLOWED).
 */
export async function sessionHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const { sessions } = ctx.services;
  const principal = ctx.call.principal;
  if (args.action === 'grant' || args.action === 'revoke' || args.action === 'handoff') return roleAction(args, ctx);
  if (args.action === 'close' || args.action === 'reset_shell') {
    // These act on the shell and every process it started: the principal's tool set must allow
    // execute, or a read-only principal could stop (or restart) what others run.
    if (!ctx.call.allowed_tools.includes('execute')) {
      throw new HoldfastError('TOOL_NOT_ALLOWED', `session(action="${args.action}") acts on the shell and its processes and needs the execute tool, which is not allowed for principal "${principal}"`, { retryable: false });
    }
    if (!args.remote_session_id) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs remote_session_id`);
    const row = requireSessionAccess(ctx, args.remote_session_id, args.action === 'close' ? 'owner' : 'editor').session;
    if (args.action === 'close') {
      await sessions.end(row.id, 'closed');
      const view = await sessions.view(row.id);
      return outcome('session.closed', 'succeeded', sessionData(view, ctx), `Session ${row.id} closed: its shell and processes were stopped.`, {
        context: { remote_session_id: row.id },
        actions: [action('session', { action: 'open', workspace: row.workspace }, 'open a new session on the same workspace')],
      });
    }
    const link = await sessions.ensureLink(row.id);
    await link.resetShell();
    // Report the shell that is there to stay: the new one may be replaced by the --norc fallback
    // until it shows its first prompt (issue 8). Guardians with `status.wait_ready` (issue 9) wait
    // for it themselves; older ones are polled.
    await link.statusWhenReady(RESET_PROMPT_WAIT_MS).catch(() => undefined);
    const st = await waitForPrompt(() => sessions.status(row.id), ctx.signal);
    ctx.services.events.append({ session_id: row.id, workspace: row.workspace, kind: 'session.reset_shell' });
    const view = await sessions.view(row.id);
    const note = st.shell.rcFallback ? ' Your rc files did not reach a prompt, so it runs without them (--norc).' : st.shell.ready ? '' : ' It has not shown a prompt yet.';
    return outcome('session.reset_shell', 'succeeded', { ...sessionData(view, ctx), shell_pid: st.shell.pid, cwd: st.cwd, shell_ready: st.shell.ready }, `Shell of ${row.id} restarted (new shell pid ${st.shell.pid}); background tasks kept running.${note}`, {
      context: { remote_session_id: row.id },
    });
  }
  const affinity = ctx.call.affinity ?? ctx.services.config.config.sessions.affinity;
  const conversation = ctx.call.mcp_session_id ?? ctx.call.conversation_header ?? args.conversation_id;
  const { session, created } = await sessions.open({
    principal,
    workspace: args.workspace,
    remote_session_id: args.remote_session_id,
    affinity,
    conversation_id: conversation,
    sandbox: ctx.call.sandbox,
    signal: ctx.signal,
  });
  const live = session.state === 'running' || session.state === 'starting';
  if (!live) {
    // Resuming a session that ended: a failure with what happened and how to go on, no usage guide.
    const message = `session ${session.remote_session_id} has ${session.state}${session.end_reason ? ` (${session.end_reason})` : ''}: its shell and processes are gone; open a new session`;
    return failure('session.exited', new HoldfastError('SESSION_EXITED', message, { retryable: false }), {
      context: { remote_session_id: session.remote_session_id },
      data: { remote_session_id: session.remote_session_id, workspace: session.workspace, workspace_root: session.workspace_root, state: session.state, end_reason: session.end_reason },
      actions: [action('session', { action: 'open', workspace: session.workspace }, 'open a new session on the same workspace')],
    });
  }
  const verb = args.remote_session_id ? 'Resumed' : created ? 'Opened new' : 'Attached to live';
  const role = sessions.roleOf(sessions.requireExisting(session.remote_session_id), principal);
  // Where the shell is now: another conversation may have moved it (`cd src`), issue 8.
  const st = await sessions.status(session.remote_session_id).catch(() => null);
  const cwd = st?.cwd ?? null;
  const moved = cwd !== null && cwd !== session.workspace_root ? ` The shell is in ${cwd}, not the workspace root.` : '';
  const inventory = await extensionInventory(session.remote_session_id, ctx);
  const extras = inventory ? inventoryText(inventory) : '';
  const running = st ? runningWork(st, session.remote_session_id, ctx) : null;
  const text = `${verb} session ${session.remote_session_id} on ${session.workspace} (${session.workspace_root}), shell pid ${session.shell_pid}, cwd ${cwd ?? 'unknown'}${sandboxPhrase(session)}${role === 'owner' || role === null ? '' : `; your role: ${role}`}.${moved}${running?.text ?? ''}${extras}${shellNote(session)}`;
  const runCommand = action('execute', { remote_session_id: session.remote_session_id, command: 'pwd' }, 'run a command in the session');
  return outcome(
    created ? 'session.created' : 'session.attached',
    'succeeded',
    { ...sessionData(session, ctx), role, cwd, ...(running ? { foreground: running.foreground, background_tasks_running: running.background } : {}), ...(inventory ? { extension_inventory: inventory } : {}) },
    text,
    {
      context: { remote_session_id: session.remote_session_id },
      hints: { created, ...(session.rc_skipped ? { rc_skipped: true } : {}) },
      actions: running?.attach ? [running.attach, runCommand] : [runCommand],
    },
  );
}

/** The first line of a command, at most 80 characters (`…` when cut). */
export function commandHead(command: string): string {
  const line = command.split('\n', 1)[0]!;
  const head = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return head !== command ? (head.endsWith('…') ? head : `${head} …`) : head;
}

/**
 * What runs in a session its opener must know about (fresh-user review: a resume after the adapter
 * died while a command ran said only where the shell is): the terminal's foreground command with
 * the `execute(action="attach")` call that picks it up (an execution task of this session; a line
 * typed through `input` has no task to attach to), and the count of running background tasks.
 */
function runningWork(st: GuardianStatus, sessionId: string, ctx: ToolContext): {
  text: string;
  foreground: { execution_task_id: string; command: string } | null;
  background: number;
  attach: ResultAction | null;
} {
  const fg = st.foreground?.state === 'running' ? st.foreground : null;
  const background = st.tasks.filter((t) => t.state === 'running').length;
  const task = fg ? ctx.services.execution.tasks.get(fg.id) : undefined;
  const attach = fg && task?.session_id === sessionId ? action('execute', { action: 'attach', remote_session_id: sessionId, execution_task_id: fg.id }, 'wait for the command still running in the terminal') : null;
  const lines: string[] = [];
  if (fg) lines.push(`Still running in the terminal: ${fg.id} \`${commandHead(fg.command)}\`${attach ? `; pick it up with ${callText(attach)}` : ''}.`);
  if (background > 0) lines.push(`${background} background task${background === 1 ? '' : 's'} running (observe(view="session") lists them).`);
  return { text: lines.map((l) => `\n${l}`).join(''), foreground: fg ? { execution_task_id: fg.id, command: fg.command } : null, background, attach };
}

/** How long reset_shell waits for the new shell's first prompt (rc files, then the --norc fallback), ms. */
const RESET_PROMPT_WAIT_MS = 15_000;
const RESET_POLL_MS = 50;

/** Polls the guardian's status until the shell shows a prompt (or the deadline passes); the last status. */
async function waitForPrompt(status: () => Promise<GuardianStatus>, signal: AbortSignal): Promise<GuardianStatus> {
  const deadline = Date.now() + RESET_PROMPT_WAIT_MS;
  let st = await status();
  while (!st.shell.ready && st.shell.alive && Date.now() < deadline && !signal.aborted) {
    await new Promise((r) => setTimeout(r, RESET_POLL_MS));
    st = await status();
  }
  return st;
}

/** What the agent must know about how the shell started (issue 9): rc files skipped, or still starting. */
function shellNote(s: SessionView): string {
  if (s.rc_skipped) return `\n${describeRcSkipped(s.rc_skipped)}`;
  if (!s.shell_ready) return "\nThe shell is still loading its start-up files; commands sent now wait for its first prompt.";
  return '';
}

function sessionData(s: SessionView, ctx: ToolContext): Record<string, unknown> {
  const cfg = ctx.services.config.config;
  return {
    remote_session_id: s.remote_session_id,
    workspace: s.workspace,
    workspace_root: s.workspace_root,
    shell_pid: s.shell_pid,
    shell: { ready: s.shell_ready, rc_skipped: s.rc_skipped ?? null },
    affinity: s.affinity,
    state: s.state,
    sandbox: s.sandbox ?? { mode: 'off', network: 'on' },
    tools: ctx.call.allowed_tools,
    limits: {
      yield_time_ms_default: 10_000,
      yield_time_ms_max: 120_000,
      output_max_bytes: 65_536,
      idle_ttl_seconds: s.ttl_seconds,
      read_window_bytes: cfg.limits.read_window_bytes,
    },
    guide: GUIDE,
    progress: progressView(ctx.services.work.progress.latest(s.remote_session_id)),
  };
}

/** `grant` / `revoke` / `handoff` (issue 14): the owner changes who else may use the session. */
function roleAction(args: Args, ctx: ToolContext): ToolOutcome {
  if (!args.remote_session_id) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs remote_session_id`);
  if (!args.principal) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs principal (the other principal's name)`);
  const { session } = requireSessionAccess(ctx, args.remote_session_id, 'owner');
  let change: RoleChange;
  if (args.action === 'grant') {
    if (!args.role) throw new HoldfastError('BAD_REQUEST', 'action=grant needs role: viewer, editor or approver');
    change = grantRole(ctx.services, session, args.principal, args.role);
  } else if (args.action === 'revoke') {
    change = revokeRole(ctx.services, session, args.principal);
  } else {
    change = handOff(ctx.services, session, args.principal);
  }
  return outcome(`session.${args.action}`, 'succeeded', { remote_session_id: session.id, owner: change.owner, roles: change.roles }, change.text, {
    context: { remote_session_id: session.id },
  });
}

/** `, sandbox bwrap (network off)` for a confined session (issue 17), else nothing. */
export function sandboxPhrase(s: SessionView): string {
  const sb = s.sandbox;
  return sb && sb.mode !== 'off' ? `, sandbox ${sb.mode} (network ${sb.network})` : '';
}

/**
 * Skills and upstream servers of the session (issue 13) when the principal may use `skill_tool`
 * or `mcp_tool`: names, descriptions, kinds and states only (no schemas); null otherwise.
 */
async function extensionInventory(id: string, ctx: ToolContext): Promise<ExtensionInventory | null> {
  const skills = ctx.call.allowed_tools.includes('skill_tool');
  const servers = ctx.call.allowed_tools.includes('mcp_tool');
  if (!skills && !servers) return null;
  const { session: row } = requireSessionAccess(ctx, id, 'viewer');
  return compactInventory({ skills: skills ? discoverSkills(sessionSkillRoots(row, ctx)) : [], servers: servers ? await liveServerViews(row, ctx) : [] });
}

function inventoryText(inv: ExtensionInventory): string {
  const parts: string[] = [];
  if (inv.skills.length > 0) parts.push(`skills (skill_tool): ${inv.skills.map((s) => s.name).join(', ')}`);
  if (inv.mcp_servers.length > 0) parts.push(`MCP servers (mcp_tool): ${inv.mcp_servers.map((s) => `${s.name} [${s.state}]`).join(', ')}`);
  return parts.length > 0 ? `\n${parts.join('; ')}` : '';
}
