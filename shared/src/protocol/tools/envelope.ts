import * as z from 'zod';

/**
 * The result envelope every tool returns (DESIGN §6.3): a short text block plus
 * `structuredContent = {status, type, context, data, error, hints, actions}`.
 * `actions` are ready-to-call continuations; `context` carries only ids that exist for this result.
 */
export const ResultStatus = z.enum(['succeeded', 'accepted', 'waiting_confirmation', 'interrupted', 'failed', 'completed_with_issues']);
export type ResultStatus = z.infer<typeof ResultStatus>;

export const ResultContext = z.object({
  remote_session_id: z.string().optional(),
  purpose: z.string().optional(),
  plan_id: z.string().optional(),
  plan_task_id: z.string().optional(),
  execution_task_id: z.string().optional(),
  operation_id: z.string().optional(),
});
export type ResultContext = z.infer<typeof ResultContext>;

export const ResultError = z.object({ code: z.string(), message: z.string(), retryable: z.boolean() });
export type ResultError = z.infer<typeof ResultError>;

export const ResultAction = z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()), reason: z.string() });
export type ResultAction = z.infer<typeof ResultAction>;

/** Builds a tool's output schema around its `data` shape. */
export function envelopeSchema<D extends z.ZodType>(data: D) {
  return z.object({
    status: ResultStatus,
    type: z.string(),
    context: ResultContext,
    data: data.nullable(),
    error: ResultError.nullable(),
    hints: z.record(z.string(), z.unknown()),
    actions: z.array(ResultAction),
  });
}

/** The envelope as a value (what handlers build). */
export interface Envelope<D = Record<string, unknown>> {
  status: ResultStatus;
  type: string;
  context: ResultContext;
  data: D | null;
  error: ResultError | null;
  hints: Record<string, unknown>;
  actions: ResultAction[];
}

/** Loose object: the data of a result, described in the tool's description. */
export const LooseData = z.looseObject({});

/** MCP tool annotations (hints for clients, untrusted). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * A tool's input schema: an object, or a discriminated union of strict objects when actions take
 * disjoint arguments (`move_out`: `prepare` | `submit`). Either renders as a JSON Schema whose root
 * is `type: "object"` (see json-schema.ts).
 */
export type ToolInputSchema = z.ZodObject | z.ZodDiscriminatedUnion<readonly z.ZodObject[]>;

/**
 * `_meta` key of a tool result that carries the §6.3 envelope when `structuredContent` is not
 * holdfast's own (`mcp_tool` passes an upstream result through, issue 13).
 */
export const ENVELOPE_META_KEY = 'holdfast/envelope';

/** One tool of the catalogue: the contract shared by the adapter (schemas) and the daemon (parsing). */
export interface ToolDef<I extends ToolInputSchema = ToolInputSchema, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  /**
   * The result's `structuredContent` schema (the §6.3 envelope). Absent for a tool whose results
   * are passed through from elsewhere (`mcp_tool`, issue 13): no `outputSchema` is listed, and the
   * envelope travels in `_meta[ENVELOPE_META_KEY]`.
   */
  output?: O;
  annotations: ToolAnnotations;
  /** Extra `_meta` on the tool listing. */
  meta?: Record<string, unknown>;
  /**
   * Set by `withWorkTracking` (issue 11) on session tools: the input accepts `activity`, and with
   * `plan: true` also `plan_id` / `plan_task_id`, which the daemon handles for every such tool.
   */
  workTracking?: { plan: boolean };
}
