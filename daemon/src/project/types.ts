import type { DiagnosticFormat } from '../diagnostics/index.js';

/** Where a project task comes from, in precedence order for plain names (issue 5 `task: NAME`). */
export const TASK_SOURCES = ['holdfast', 'npm', 'make', 'cargo', 'go', 'python'] as const;
export type TaskSource = (typeof TASK_SOURCES)[number];

/**
 * A project task: a name the agent passes as `execute(task=NAME)`, and the shell command holdfast
 * runs for it in the session's terminal (judged by the command policy like any other command).
 */
export interface ProjectTask {
  /** Plain name (`build`). */
  name: string;
  /** Always-unique name (`npm:build`, `make:build`, `cargo:test`, `holdfast:deploy`). */
  qualified: string;
  source: TaskSource;
  /** The shell command run. */
  command: string;
  /** What it does: the script body, a comment, or the convention. */
  description: string;
  /** Output formats parsed into diagnostics after it runs. */
  diagnostics: DiagnosticFormat[] | 'auto';
  /** Working directory relative to the project root ('' = the root). */
  cwd: string;
  /**
   * Shell text the task runs besides `command`, when it is known (npm: the `pre<name>`, `<name>`
   * and `post<name>` script bodies). Judged by the command policy with `command`; for tasks whose
   * bodies are not read (make recipes, cargo, go) only `command` is judged (a documented limit).
   */
  runs?: string[];
}

/** A discovery source: reads its file(s) under `root` and lists tasks (never throws; problems are reported). */
export type TaskDiscoverer = (root: string, problems: string[]) => ProjectTask[];
