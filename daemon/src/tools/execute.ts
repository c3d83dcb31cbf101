import { HoldfastError } from '@holdfast/shared/errors';
import { newId } from '@holdfast/shared/ids';
import { OutputLimits, type CommandRecord, type OutputSource, type TaskRecord } from '@holdfast/shared/protocol';
import type { executeTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { renderTerminalText } from '../render/terminal-text.js';
import type { GuardianLink } from '../sessions/link.js';
import type { ToolContext } from './context.js';
import { action, failure, outcome, type ToolOutcome } from './envelope.js';

type Args = z.output<typeof executeTool.input>;

const DEFAULT_YIELD_MS = 10_000;
/** Raw bytes read to render the tail given to the model (rendering only shrinks text). */
const RAW_TAIL_BYTES = 4 * OutputLimits.MODEL_TEXT_MAX_BYTES;

/** MCP resource URI of a task's logs (issue 5). */
export function taskLogUri(rs: string, taskId: string): string {
  return `holdfast://remote-sessions/${rs}/tasks/${taskId}/logs`;
}

/** Single-quotes a string for bash. */
function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * `execute` (DESIGN §5, issues 3 and 5): foreground commands in the session's PTY, background and
 * argv tasks in their own process groups, attach/stop/stdin/status on an execution task.
 */
export async function executeHandler(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  const row = ctx.services.sessions.requireOwned(args.remote_session_id, ctx.call.principal);
  const link = await ctx.services.sessions.ensureLink(row.id);
  const rs = row.id;
  const base = { remote_session_id: rs, ...(args.purpose ? { purpose: args.purpose } : {}) };
  const yieldMs = args.yield_time_ms ?? DEFAULT_YIELD_MS;

  switch (args.action) {
    case 'run':
      return run(args, link, rs, base, yieldMs);
    case 'attach':
    case 'status': {
      const id = requireTaskId(args);
      const rec = await link.wait({ id, waitMs: args.action === 'status' ? 0 : yieldMs });
      return describe(rec, link, rs, base);
    }
    case 'stop': {
      const id = requireTaskId(args);
      const rec = await link.stop(id);
      return describe(rec, link, rs, base);
    }
    case 'stdin': {
      if (args.text === undefined && args.keys === undefined) throw new HoldfastError('BAD_REQUEST', 'action=stdin needs text and/or keys');
      await link.input({ ...(args.text !== undefined ? { text: args.text } : {}), ...(args.keys !== undefined ? { keys: args.keys } : {}) });
      if (!args.execution_task_id) {
        return outcome('execute.stdin', 'succeeded', { written: true }, 'Input sent to the terminal.', { context: base });
      }
      const rec = await link.wait({ id: args.execution_task_id, waitMs: args.yield_time_ms ?? 5000 });
      return describe(rec, link, rs, base);
    }
  }
}

function requireTaskId(args: Args): string {
  if (!args.execution_task_id) throw new HoldfastError('BAD_REQUEST', `action=${args.action} needs execution_task_id`);
  return args.execution_task_id;
}

async function run(args: Args, link: GuardianLink, rs: string, base: Record<string, string>, yieldMs: number): Promise<ToolOutcome> {
  const modes = [args.command !== undefined, args.argv !== undefined].filter(Boolean).length;
  if (modes !== 1) throw new HoldfastError('BAD_REQUEST', 'give exactly one of command or argv');
  if (args.argv !== undefined && args.shell !== false) throw new HoldfastError('BAD_REQUEST', 'argv runs without a shell: pass shell=false with it');
  const id = newId('executionTask');

  if (args.argv !== undefined || args.background === true) {
    const spawnArgs = {
      id,
      ...(args.argv !== undefined ? { argv: args.argv } : { command: args.command! }),
      ...(args.cwd !== undefined ? { cwd: args.cwd } : {}),
      ...(args.env !== undefined ? { env: args.env } : {}),
    };
    const started = await link.spawn(spawnArgs);
    const rec = args.background === true ? started : await link.wait({ id, waitMs: yieldMs });
    return describe(rec, link, rs, base);
  }

  let command = args.command!;
  if (args.cwd !== undefined || args.env !== undefined) {
    // A one-off cwd/env runs in a subshell so the session's own cwd and env stay as they were.
    const parts: string[] = [];
    if (args.cwd !== undefined) parts.push(`cd ${shQuote(args.cwd)}`);
    for (const [k, v] of Object.entries(args.env ?? {})) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new HoldfastError('BAD_REQUEST', `env name ${JSON.stringify(k)} is not a valid variable name`);
      parts.push(`export ${k}=${shQuote(v)}`);
    }
    command = `( ${parts.join(' && ')} && ${command}\n)`;
  }
  const r = await link.exec({ id, command, waitMs: yieldMs });
  if (!r.ok) {
    if (r.reason === 'command_already_running' && r.running) {
      return failure('execute.run', new HoldfastError('COMMAND_ALREADY_RUNNING', `another foreground command (${r.running.id}) is still running; wait for it, answer it or stop it — or run this one with background=true`), {
        context: base,
        data: { running: { execution_task_id: r.running.id, command: r.running.command } },
        actions: [
          action('execute', { action: 'attach', remote_session_id: rs, execution_task_id: r.running.id }, 'wait for the running command'),
          action('execute', { action: 'stop', remote_session_id: rs, execution_task_id: r.running.id }, 'stop the running command'),
          action('execute', { action: 'run', remote_session_id: rs, command: args.command, background: true }, 'run this command as a background task'),
        ],
      });
    }
    throw new HoldfastError(r.reason === 'shell_exited' ? 'SESSION_EXITED' : 'GUARDIAN_UNAVAILABLE', `the session's shell is not available (${r.reason}); reset it with session(action="reset_shell")`);
  }
  return describe(r.cmd, link, rs, base);
}

interface RenderedStream {
  text: string;
  truncated: boolean;
  start: number;
  end: number;
}

/** Reads the tail of `[start, end)` of a source and renders it, capped at 64 KiB of text. */
async function renderRange(link: GuardianLink, src: OutputSource, start: number, end: number): Promise<RenderedStream> {
  const from = Math.max(start, end - RAW_TAIL_BYTES);
  const chunks: Buffer[] = [];
  let at = from;
  let gap = false;
  while (at < end) {
    const r = await link.read({ src, from: at, max: Math.min(end - at, 4 * 1024 * 1024) });
    if (r.gap) gap = true;
    if (r.data.length === 0) break;
    chunks.push(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.length));
    at = r.next;
    if (r.offset > at) break;
  }
  let text = renderTerminalText(Buffer.concat(chunks));
  let truncated = from > start || gap;
  const max = OutputLimits.MODEL_TEXT_MAX_BYTES;
  if (Buffer.byteLength(text) > max) {
    const buf = Buffer.from(text);
    text = buf.subarray(buf.length - max).toString('utf8').replace(/^\uFFFD+/, '');
    const nl = text.indexOf('\n');
    if (nl >= 0 && nl < 200) text = text.slice(nl + 1);
    truncated = true;
  }
  return { text, truncated, start, end };
}

function marker(rs: string, id: string, s: RenderedStream): string {
  return `[output head dropped: showing the last ${Buffer.byteLength(s.text)} bytes of ${s.end - s.start}; full log: ${taskLogUri(rs, id)} (observe view=logs)]\n`;
}

/** Builds the result for a command or task record (finished, running or awaiting input). */
async function describe(rec: CommandRecord | TaskRecord, link: GuardianLink, rs: string, base: Record<string, string>): Promise<ToolOutcome> {
  const context = { ...base, execution_task_id: rec.id };
  const running = rec.state === 'running';
  const continueActions = running
    ? [
        action('execute', { action: 'attach', remote_session_id: rs, execution_task_id: rec.id }, 'wait for it to finish'),
        action('execute', { action: 'stop', remote_session_id: rs, execution_task_id: rec.id }, 'stop it'),
      ]
    : [];
  if (rec.kind === 'command') {
    const end = rec.outputEnd ?? (await link.status()).pty.end;
    const out = await renderRange(link, 'pty', rec.outputStart, end);
    const output = (out.truncated ? marker(rs, rec.id, out) : '') + out.text;
    const data: Record<string, unknown> = {
      execution_task_id: rec.id,
      command: rec.command,
      state: rec.state,
      output,
      exit_code: rec.exitCode ?? null,
      awaiting_input: rec.awaitingInput === true,
      truncated: out.truncated,
      output_offset: rec.outputStart,
      next_offset: end,
      log_uri: taskLogUri(rs, rec.id),
    };
    if (rec.awaitingInput) {
      const snap = await link.snapshot();
      data.screen = snap.lines.join('\n').replace(/\n+$/, '');
      return outcome('execute.awaiting_input', 'accepted', data, `Waiting for input:\n${tailLines(data.screen as string, 20)}`, {
        context,
        actions: [action('execute', { action: 'stdin', remote_session_id: rs, execution_task_id: rec.id, text: '', keys: ['Enter'] }, 'answer the prompt (put your answer in text)'), ...continueActions],
      });
    }
    if (running) {
      return outcome('execute.running', 'accepted', data, `Still running after the wait (${rec.id}).${out.text ? `\nOutput so far:\n${out.text}` : ''}`, { context, actions: continueActions });
    }
    const text = `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}[exit code ${rec.exitCode}]`;
    return outcome('execute.finished', 'succeeded', data, text, { context });
  }
  const [stdout, stderr] = await Promise.all([
    renderRange(link, `task:${rec.id}:stdout`, rec.stdout.start, rec.stdout.end),
    renderRange(link, `task:${rec.id}:stderr`, rec.stderr.start, rec.stderr.end),
  ]);
  const truncated = stdout.truncated || stderr.truncated;
  const output = (truncated ? marker(rs, rec.id, stdout.truncated ? stdout : stderr) : '') + stdout.text + (stderr.text ? `${stdout.text ? '\n' : ''}[stderr]\n${stderr.text}` : '');
  const data: Record<string, unknown> = {
    execution_task_id: rec.id,
    argv: rec.argv,
    ...(rec.command !== undefined ? { command: rec.command } : {}),
    state: rec.state,
    pid: rec.pid,
    output,
    stdout: stdout.text,
    stderr: stderr.text,
    exit_code: rec.exitCode ?? null,
    signal: rec.signal ?? null,
    awaiting_input: false,
    truncated,
    next_offsets: { stdout: rec.stdout.end, stderr: rec.stderr.end },
    log_uri: taskLogUri(rs, rec.id),
  };
  if (running) {
    return outcome('execute.task_running', 'accepted', data, `Task ${rec.id} is running (pid ${rec.pid}).${output ? `\nOutput so far:\n${output}` : ''}`, { context, actions: continueActions });
  }
  const text = `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}[exit code ${rec.exitCode ?? 'none'}${rec.signal ? `, signal ${rec.signal}` : ''}]`;
  return outcome('execute.task_finished', 'succeeded', data, text, { context });
}

function tailLines(s: string, n: number): string {
  const lines = s.split('\n');
  return lines.slice(Math.max(0, lines.length - n)).join('\n');
}
