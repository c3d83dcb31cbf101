import * as z from 'zod';

/**
 * The result envelope every tool returns (DESIGN §6.3): a short text block plus
 * `structuredContent = {status, type, context, data, error, hints, actions}`.
 * `actions` are ready-to-call continuations; `context` carries only ids that exist for this result.
 */
export const ResultStatus = z.enum(['succeeded', 'accepted', 'waiting_confirmation', 'waiting_user', 'interrupted', 'failed', 'completed_with_issues']);
export type ResultStatus = z.infer<typeof ResultStatus>;

/** Loose object: the data of a result, described in the tool's description. */
export const LooseData = z.looseObject({});

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

/** Envelope output schemas → their `data` schema (null: any object), for the compact JSON rendering. */
const ENVELOPE_DATA = new WeakMap<z.ZodType, z.ZodType | null>();

/** Builds a tool's output schema around its `data` shape. */
export function envelopeSchema<D extends z.ZodType>(data: D) {
  const schema = z.object({
    status: ResultStatus,
    type: z.string(),
    context: ResultContext,
    data: data.nullable(),
    error: ResultError.nullable(),
    hints: z.record(z.string(), z.unknown()),
    actions: z.array(ResultAction),
  });
  ENVELOPE_DATA.set(schema, (data as z.ZodType) === LooseData ? null : data);
  return schema;
}

/**
 * The `data` schema of an output schema built by {@link envelopeSchema}: null when `data` is any
 * object ({@link LooseData}), undefined when `output` is not an envelope.
 */
export function envelopeDataOf(output: z.ZodType): z.ZodType | null | undefined {
  return ENVELOPE_DATA.get(output);
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


/** MCP tool annotations (hints for clients, untrusted). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * A tool's input schema: one flat object (issue 8). Tools with actions take an `action` string
 * enum; which fields each action needs or refuses is checked by the schema's refinement
 * ({@link withActionRules}) and the handler, never by a `oneOf` (Claude Code drops such tools).
 */
export type ToolInputSchema = z.ZodObject;

import { ELICITATION_META_KEY, ENVELOPE_META_KEY, INPUT_SCHEMA_HINT } from './constants.js';
export { ELICITATION_META_KEY, ENVELOPE_META_KEY, INPUT_SCHEMA_HINT };

/** What {@link ELICITATION_META_KEY} carries. */
export interface UrlElicitationRequest {
  mode: 'url';
  url: string;
  message: string;
}

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
