import type { ProjectConfig } from '../policy/project-config.js';
import { discoverCargo } from './cargo.js';
import { discoverGoMod } from './go-mod.js';
import { discoverHoldfastYaml } from './holdfast-yaml.js';
import { discoverMakefile } from './makefile.js';
import { discoverPackageJson } from './package-json.js';
import { discoverPyproject } from './pyproject.js';
import { TASK_SOURCES, type ProjectTask, type TaskDiscoverer } from './types.js';

export * from './types.js';

/** What `runtime_read(view="project")` reports and `execute(task=…)` resolves against. */
export interface ProjectInfo {
  root: string;
  /** Every task, by source precedence (holdfast, npm, make, cargo, go, python), then file order. */
  tasks: ProjectTask[];
  /** Problems found while reading the project's files (the rest still works). */
  problems: string[];
}

const FILE_SOURCES: readonly TaskDiscoverer[] = [discoverPackageJson, discoverMakefile, discoverCargo, discoverGoMod, discoverPyproject];

/**
 * Discovers a project's tasks (issue 5): `.holdfast.yaml` `tasks`, `package.json` scripts,
 * Makefile targets, and the Cargo, Go and pyproject conventions. Reads a handful of small files;
 * not on the hot path of plain commands.
 */
export function discoverProject(root: string, config: ProjectConfig): ProjectInfo {
  const problems: string[] = [];
  const tasks = [...discoverHoldfastYaml(config, problems), ...FILE_SOURCES.flatMap((d) => d(root, problems))];
  tasks.sort((a, b) => TASK_SOURCES.indexOf(a.source) - TASK_SOURCES.indexOf(b.source));
  return { root, tasks, problems };
}

/**
 * Finds a task by qualified name (`npm:build`) or plain name (`build`: the first source by
 * precedence that has it). Null when none.
 */
export function findTask(info: ProjectInfo, name: string): ProjectTask | null {
  return info.tasks.find((t) => t.qualified === name) ?? info.tasks.find((t) => t.name === name) ?? null;
}
