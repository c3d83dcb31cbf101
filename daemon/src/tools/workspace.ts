import type { ToolContext } from './context.js';
import { action, outcome, type ToolOutcome } from './envelope.js';

/** `workspace`: the registered workspaces (issue 3). */
export function workspaceHandler(_args: Record<string, never>, ctx: ToolContext): ToolOutcome {
  const workspaces = ctx.services.config.listWorkspaces();
  const text =
    workspaces.length === 0
      ? 'No workspace is registered. Ask the user to run `holdfast workspace register <path>`.'
      : workspaces.map((w) => `${w.name}${w.available ? '' : ' (unavailable)'}: ${w.path}${w.description ? ` — ${w.description}` : ''}`).join('\n');
  const first = workspaces.find((w) => w.available);
  return outcome('workspace.list', 'succeeded', { workspaces }, text, {
    actions: first ? [action('session', { action: 'open', workspace: first.name }, `open a session on ${first.name}`)] : [],
  });
}
