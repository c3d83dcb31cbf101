import { HoldfastError } from '@holdfast/shared/errors';
import type { runtimeReadTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { discoverProject } from '../project/index.js';
import type { ToolContext } from './context.js';
import { action, outcome, type ToolOutcome } from './envelope.js';
import { requireSessionAccess } from '../sessions/access.js';

/**
 * `runtime_read(view="project")` (issue 5): the tasks `execute(task=NAME)` can run in a workspace —
 * from `.holdfast.yaml`, `package.json` scripts, Makefile targets and the Cargo, Go and pyproject
 * conventions — with the command each runs and the diagnostics format parsed from its output.
 * The workspace is the session's (`remote_session_id`), the named one, or the only one.
 */
export function projectView(args: z.output<typeof runtimeReadTool.input>, ctx: ToolContext): ToolOutcome {
  let root: string;
  let name: string;
  let rs: string | undefined;
  if (args.remote_session_id !== undefined) {
    const s = requireSessionAccess(ctx, args.remote_session_id, 'viewer').session;
    root = s.workspace_root;
    name = s.workspace;
    rs = s.id;
  } else {
    const all = ctx.services.config.config.workspaces;
    const ws = args.workspace !== undefined ? ctx.services.config.findWorkspace(args.workspace) : all.length === 1 ? all[0] : undefined;
    if (!ws) {
      throw new HoldfastError(args.workspace !== undefined ? 'WORKSPACE_NOT_FOUND' : 'BAD_REQUEST', `name a workspace (one of ${all.map((w) => w.name).join(', ') || 'none registered'}) or pass remote_session_id`);
    }
    root = ws.path;
    name = ws.name;
  }
  const info = discoverProject(root, ctx.services.execution.projects.get(root));
  const tasks = info.tasks.map((t) => ({ name: t.name, qualified: t.qualified, source: t.source, command: t.command, description: t.description, diagnostics: t.diagnostics, ...(t.cwd ? { cwd: t.cwd } : {}) }));
  const data = { workspace: name, root, tasks, ...(info.problems.length ? { problems: info.problems } : {}) };
  const text = `${tasks.length} project tasks in ${name}${tasks.length ? ':\n' : '.'}${tasks.map((t) => `${t.qualified}: ${t.command}`).join('\n')}${info.problems.length ? `\nProblems: ${info.problems.join('; ')}` : ''}`;
  const first = tasks[0];
  const actions = rs && first ? [action('execute', { action: 'run', remote_session_id: rs, task: first.qualified }, `run ${first.qualified}`)] : [];
  return outcome('runtime.project', 'succeeded', data, text, { ...(rs ? { context: { remote_session_id: rs } } : {}), actions });
}
