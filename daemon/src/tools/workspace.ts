import { HoldfastError } from '@holdfast/shared/errors';
import type { ToolContext } from './context.js';
import { action, outcome, type ToolOutcome } from './envelope.js';

/**
 * `workspace`: the registered workspaces (issue 3), or only the one called `name` (issue 8).
 * @throws HoldfastError `BAD_REQUEST` for an unknown name (the message lists the known ones).
 */
export function workspaceHandler(args: { name?: string | undefined }, ctx: ToolContext): ToolOutcome {
  const all = ctx.services.config.listWorkspaces();
  const workspaces = args.name === undefined ? all : all.filter((w) => w.name === args.name);
  if (args.name !== undefined && workspaces.length === 0) {
    throw new HoldfastError('BAD_REQUEST', `no workspace "${args.name}"; registered: ${all.map((w) => w.name).join(', ') || '(none)'}`);
  }
  const text =
    workspaces.length === 0
      ? 'No workspace is registered. Ask the user to run `holdfast serve` in their project folder, or `holdfast workspace register <path>`.'
      : workspaces.map((w) => `${w.name}${w.available ? '' : ' (unavailable)'}: ${w.path}${w.description ? ` — ${w.description}` : ''}`).join('\n');
  const first = workspaces.find((w) => w.available);
  return outcome('workspace.list', 'succeeded', { workspaces }, text, {
    actions: first ? [action('session', { action: 'open', workspace: first.name }, `open a session on ${first.name}`)] : [],
  });
}
