import { buildInfo } from '@holdfast/shared/build';
import { MCP_PROTOCOL_VERSIONS, OutputLimits, ProtocolVersions } from '@holdfast/shared/constants';
import { toolSchemaRevision, type runtimeReadTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { HoldfastError } from '@holdfast/shared/errors';
import { requireSessionAccess } from '../sessions/access.js';
import { projectView } from './runtime-project.js';
import { secretsLink } from './secret-provide.js';
import type { ToolContext } from './context.js';
import { outcome, type ToolOutcome } from './envelope.js';

type Args = z.output<typeof runtimeReadTool.input>;

/** `runtime_read`: dispatches on `view`. */
export function runtimeReadHandler(args: Args, ctx: ToolContext): ToolOutcome | Promise<ToolOutcome> {
  if (args.view === 'secrets') return secretsView(args, ctx);
  return args.view === 'project' ? projectView(args, ctx) : capabilitiesView(ctx);
}

/** `runtime_read(view="secrets")` (issue 12): names, purposes and times of the session's secrets and open requests — never values. */
async function secretsView(args: Args, ctx: ToolContext): Promise<ToolOutcome> {
  if (args.remote_session_id === undefined) throw new HoldfastError('BAD_REQUEST', 'view=secrets needs remote_session_id', { retryable: false });
  const { session } = requireSessionAccess(ctx, args.remote_session_id, 'viewer');
  const list = await (await secretsLink(ctx.services.sessions, session.id)).secretList();
  const secrets = list.secrets.map((s) => ({ name: s.name, purpose: s.purpose, provided_at: s.providedAt, via: s.via }));
  const requested = list.requests.map((r) => ({ name: r.name, purpose: r.purpose, requested_at: r.requestedAt }));
  const lines = [...secrets.map((s) => `${s.name} (held, ${s.via}): ${s.purpose}`), ...requested.map((r) => `${r.name} (requested): ${r.purpose}`)];
  return outcome('runtime.secrets', 'succeeded', { secrets, requested }, lines.join('\n') || 'No secrets in this session.', { context: { remote_session_id: session.id } });
}

/** `runtime_read(view="capabilities")` (issue 3): version, build, protocols, schema revision, limits. */
function capabilitiesView(ctx: ToolContext): ToolOutcome {
  const b = buildInfo();
  const cfg = ctx.services.config.config;
  const data = {
    version: b.version,
    build_commit: b.commit,
    protocol_versions: [...MCP_PROTOCOL_VERSIONS],
    control_protocol: ProtocolVersions.CONTROL,
    guardian_protocols: [...ProtocolVersions.GUARDIAN_SUPPORTED],
    tool_schema_revision: toolSchemaRevision(),
    tools: ctx.call.allowed_tools,
    limits: {
      max_body_bytes: cfg.limits.max_body_bytes,
      request_timeout_ms: cfg.limits.request_timeout_ms,
      max_concurrency: cfg.limits.max_concurrency,
      requests_per_minute: cfg.limits.requests_per_minute,
      read_window_bytes: cfg.limits.read_window_bytes,
      output_max_bytes: OutputLimits.MODEL_TEXT_MAX_BYTES,
      max_live_sessions: cfg.sessions.max_live,
      ttl_never_executed_s: cfg.sessions.ttl_never_executed_s,
      ttl_executed_s: cfg.sessions.ttl_executed_s,
    },
  };
  return outcome('runtime.capabilities', 'succeeded', data, `holdfast ${b.version} (${b.commit.slice(0, 12)}), MCP ${MCP_PROTOCOL_VERSIONS.join(', ')}, tool schemas ${data.tool_schema_revision}.`);
}
