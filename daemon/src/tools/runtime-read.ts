import { buildInfo } from '@holdfast/shared/build';
import { MCP_PROTOCOL_VERSIONS, OutputLimits, ProtocolVersions } from '@holdfast/shared/constants';
import { toolSchemaRevision, type runtimeReadTool } from '@holdfast/shared/tools';
import type * as z from 'zod';
import { projectView } from './runtime-project.js';
import type { ToolContext } from './context.js';
import { outcome, type ToolOutcome } from './envelope.js';

type Args = z.output<typeof runtimeReadTool.input>;

/** `runtime_read`: dispatches on `view`. */
export function runtimeReadHandler(args: Args, ctx: ToolContext): ToolOutcome {
  return args.view === 'project' ? projectView(args, ctx) : capabilitiesView(ctx);
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
