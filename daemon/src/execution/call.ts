import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { HoldfastError } from '@holdfast/shared/errors';
import type { executeTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import type { DiagnosticFormat } from '../diagnostics/index.js';
import { resolveWorkspacePath } from '../files/workspace-path.js';
import { discoverProject, findTask } from '../project/index.js';
import type { ProjectConfig } from '../policy/project-config.js';
import type { TaskKind, TaskOrigin } from '../store/tasks-repo.js';

/** Parsed arguments of `execute`. */
export type ExecuteArgs = z.output<typeof executeTool.input>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * What one `execute(action="run")` asks for, resolved (issue 5): the mode (`command` in the PTY,
 * `background` shell task, exact `argv`, or a project `task`), the command text or vector, an
 * absolute working directory (or null: the shell's current one), the environment and the purpose.
 * Its {@link fingerprint} is what a confirmation and an idempotency key are bound to.
 */
export interface ResolvedCall {
  origin: TaskOrigin;
  kind: TaskKind;
  /** Shell text (for a task: its command). */
  command: string | null;
  argv: string[] | null;
  taskName: string | null;
  /** Absolute working directory, or null for the shell's current directory. */
  cwd: string | null;
  env: Record<string, string> | null;
  /** Names of held secrets set in its environment (issue 12), or null. */
  secrets?: string[] | null;
  purpose: string | null;
  background: boolean;
  /** Diagnostics to parse after it ran (project tasks), or null. */
  diagnostics: DiagnosticFormat[] | 'auto' | null;
  /** Shell text a project task runs besides `command` (script bodies), judged with it. */
  taskScripts: string[];
}

/**
 * Resolves and validates run arguments.
 * @throws HoldfastError `BAD_REQUEST` for a wrong combination, an env name, a missing folder or
 *   an unknown task (its message lists the known ones); `PATH_OUTSIDE_WORKSPACE` for a `cwd` that
 *   leads outside the workspace (see {@link resolveCwd}).
 */
export function resolveCall(args: ExecuteArgs, workspaceRoot: string, project: () => ProjectConfig): ResolvedCall {
  const given = [args.command !== undefined, args.argv !== undefined, args.task !== undefined].filter(Boolean).length;
  if (given !== 1) throw new HoldfastError('BAD_REQUEST', 'give exactly one of command (shell text), argv (with shell=false) or task (a project task name)');
  if (args.argv !== undefined && args.shell !== false) throw new HoldfastError('BAD_REQUEST', 'argv runs without a shell: pass shell=false with it');
  if (args.argv === undefined && args.shell === false) throw new HoldfastError('BAD_REQUEST', 'shell=false goes with argv (an exact argument vector)');
  if (args.command !== undefined && args.command.trim() === '') throw new HoldfastError('BAD_REQUEST', 'command is empty');
  const envArg = envRecord(args.env);
  for (const k of Object.keys(envArg ?? {})) {
    if (!ENV_NAME.test(k)) throw new HoldfastError('BAD_REQUEST', `env name ${JSON.stringify(k)} is not a valid variable name`);
  }
  const secrets = [...new Set(args.secrets ?? [])];
  for (const n of secrets) {
    if (!ENV_NAME.test(n) || n.length > 64) throw new HoldfastError('BAD_REQUEST', `secret name ${JSON.stringify(n)} is not a valid variable name`);
    if (envArg?.[n] !== undefined) throw new HoldfastError('BAD_REQUEST', `${n} is given both in env and in secrets; give it once`);
  }
  let command = args.command ?? null;
  let taskName: string | null = null;
  let diagnostics: ResolvedCall['diagnostics'] = null;
  let cwdArg = args.cwd;
  let taskScripts: string[] = [];
  if (args.task !== undefined) {
    const info = discoverProject(workspaceRoot, project());
    const task = findTask(info, args.task);
    if (!task) {
      const known = info.tasks.map((t) => t.qualified);
      throw new HoldfastError('BAD_REQUEST', `no project task "${args.task}"; known: ${known.slice(0, 40).join(', ') || '(none)'} — see runtime_read(view="project")`, { details: { tasks: known } });
    }
    command = task.command;
    taskName = task.qualified;
    diagnostics = task.diagnostics;
    taskScripts = task.runs ?? [];
    cwdArg ??= task.cwd === '' ? '.' : task.cwd;
  }
  const cwd = cwdArg === undefined ? null : resolveCwd(cwdArg, workspaceRoot);
  const origin: TaskOrigin = args.argv !== undefined ? 'argv' : args.task !== undefined ? 'task' : 'command';
  const background = args.background === true;
  return {
    origin,
    kind: origin === 'argv' ? 'argv' : background ? 'background' : 'foreground',
    command,
    argv: args.argv ?? null,
    taskName,
    cwd,
    env: envArg && Object.keys(envArg).length > 0 ? envArg : null,
    secrets: secrets.length > 0 ? secrets.sort() : null,
    purpose: args.purpose ?? null,
    background,
    diagnostics,
    taskScripts,
  };
}

/**
 * The `env` argument as an object: `["NAME=value", …]` (what the schema advertises, issue 8) or
 * `{NAME: value}`. A later entry for the same name wins, as in `env(1)`.
 * @throws HoldfastError `BAD_REQUEST` for an entry without `=`.
 */
export function envRecord(env: ExecuteArgs['env']): Record<string, string> | undefined {
  if (env === undefined || !Array.isArray(env)) return env;
  const out: Record<string, string> = {};
  for (const entry of env) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new HoldfastError('BAD_REQUEST', `env entry ${JSON.stringify(entry.slice(0, 80))} is not NAME=value`);
    out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

/**
 * The absolute, canonical folder of a one-off `cwd` (issue 5: relative to the workspace root).
 * Resolved like every file tool path (files/workspace-path.ts): `..` segments, absolute paths
 * outside the root and symlinks anywhere on the path that lead out are refused. An absolute path
 * inside the root is taken as the same path relative to it (results and confirmations show
 * absolute folders).
 * @throws HoldfastError `PATH_OUTSIDE_WORKSPACE` (escapes), `BAD_REQUEST` (not a folder, NUL).
 */
export function resolveCwd(cwd: string, root: string): string {
  const p = resolveWorkspacePath(root, cwd, { followFinal: true });
  let ok = false;
  try {
    ok = statSync(p.real).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new HoldfastError('BAD_REQUEST', `cwd ${cwd} is not a folder (relative paths start at the workspace root ${root})`);
  return p.real;
}

/**
 * sha256 over everything a confirmation and an idempotency key are bound to (issue 5): mode,
 * command or argv or task, resolved cwd, environment (names and values), purpose, background —
 * and the names of the secrets it gets (issue 12; never their values).
 */
export function fingerprint(c: ResolvedCall): string {
  const env = c.env ? Object.entries(c.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null;
  const doc = [c.origin, c.kind, c.command, c.argv, c.taskName, c.cwd, env, c.purpose, c.background, ...(c.secrets ? [c.secrets] : [])];
  return createHash('sha256').update(JSON.stringify(doc)).digest('hex');
}

/** Single-quotes a string for bash. */
export function bashQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The environment the command policy judges (issue 12): the call's `env`, plus each secret's name
 * with a stand-in value — a secret may not set a variable that makes programs run other code
 * (`LD_PRELOAD`, `BASH_ENV`, …) without the same confirmation an `env` entry would need.
 */
export function judgedEnv(c: ResolvedCall): Record<string, string> | null {
  if (!c.secrets) return c.env;
  const out: Record<string, string> = { ...(c.env ?? {}) };
  for (const n of c.secrets) out[n] = `[secret:${n}]`;
  return out;
}

/**
 * The line typed into the PTY for a foreground call: the command itself, or — with a one-off cwd
 * or env — a subshell `( cd DIR && export K=V && COMMAND\n)`, so the session's own directory and
 * environment stay as they were.
 */
export function foregroundLine(c: ResolvedCall): string {
  const command = c.command!;
  if (c.cwd === null && c.env === null) return command;
  const parts: string[] = [];
  if (c.cwd !== null) parts.push(`cd ${bashQuote(c.cwd)}`);
  for (const [k, v] of Object.entries(c.env ?? {})) parts.push(`export ${k}=${bashQuote(v)}`);
  return `( ${parts.join(' && ')} && ${command}\n)`;
}
