import * as z from 'zod';
import { envelopeDataOf, ResultStatus, type ToolDef } from './envelope.js';

/**
 * JSON Schema rendering and argument parsing of the tool catalogue, so processes that serve MCP
 * (the adapter) never import zod themselves and every process renders the same schemas.
 *
 * Schemas are JSON Schema 2020-12 (the default dialect since MCP 2025-11-25), rendered from the
 * zod definitions in this folder. Both always have `type: "object"` at the root and are
 * self-contained (zod inlines every sub-schema; no `$ref`).
 *
 * Input schemas (`io: 'input'`: fields with defaults are optional) are what MCP clients hand to
 * model APIs as function parameters, so they are rendered in the subset that the Anthropic, OpenAI
 * and Gemini function-calling APIs all accept (docs/tool-schemas.md, issue 8): no `$schema`, no
 * `additionalProperties` (Gemini's schema has no such field; unknown keys are refused or dropped by
 * the server's own parse), no `propertyNames`, and no `±Number.MAX_SAFE_INTEGER` bounds that zod
 * adds to integers. A field whose zod type cannot be said in that subset carries its rendering
 * ({@link renderedAs}). `catalog-rules.ts` checks the result for every tool.
 *
 * Output schemas are never sent to a model; the shared result envelope (DESIGN §6.3) renders as
 * one compact schema (about 400 bytes) that accepts every envelope: see {@link envelopeJsonSchema}.
 */

/** A JSON Schema object (parsed JSON). */
export type JsonSchemaObject = { type: 'object' } & Record<string, unknown>;

/** The MCP `Tool` entry of one catalogue tool (DESIGN §6.3): what `tools/list` shows. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Absent for a pass-through tool (`mcp_tool`, issue 13). */
  outputSchema?: JsonSchemaObject;
  annotations: ToolDef['annotations'];
  _meta?: Record<string, unknown>;
}

/** Explicit renderings of zod schemas that the function-calling subset cannot express as zod renders them. */
const RENDERINGS = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * Gives a zod schema a fixed JSON Schema rendering (replacing what zod would render), e.g. a field
 * that accepts `["NAME=value", …]` or `{NAME: value}` but is advertised in the first form only.
 * The server still parses with the zod schema. Returns `schema` itself.
 */
export function renderedAs<T extends z.ZodType>(schema: T, json: Record<string, unknown>): T {
  RENDERINGS.set(schema, json);
  return schema;
}

/** `propertyNames: {type: "string"}` says nothing: JSON object keys are strings. */
function isStringKeys(v: unknown): boolean {
  return v !== null && typeof v === 'object' && Object.keys(v).length === 1 && (v as { type?: unknown }).type === 'string';
}

function inputOverride(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const fixed = RENDERINGS.get(ctx.zodSchema as z.ZodType);
  const js = ctx.jsonSchema;
  if (fixed) {
    for (const k of Object.keys(js)) if (k !== 'description') delete js[k];
    Object.assign(js, structuredClone(fixed));
    return;
  }
  delete js.additionalProperties;
  if (isStringKeys(js.propertyNames)) delete js.propertyNames;
  if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
  if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
}

/**
 * zod renders "any further properties" (`z.looseObject`, `z.record(z.string(), z.unknown())`) as
 * `additionalProperties: {}`; JSON Schema means the same by `true`, which is what strict checkers
 * (MCP Inspector `--strict`) expect.
 */
function outputOverride(ctx: { jsonSchema: Record<string, unknown> }): void {
  const js = ctx.jsonSchema;
  const extra = js.additionalProperties;
  if (extra !== null && typeof extra === 'object' && !Array.isArray(extra) && Object.keys(extra).length === 0) js.additionalProperties = true;
  if (isStringKeys(js.propertyNames)) delete js.propertyNames;
  if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
  if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
}

function render(schema: z.ZodType, io: 'input' | 'output'): JsonSchemaObject {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, override: io === 'input' ? inputOverride : outputOverride }) as Record<string, unknown>;
  if (json.type !== undefined && json.type !== 'object') {
    throw new Error(`tool schemas must describe objects (got type ${JSON.stringify(json.type)})`);
  }
  delete json.$schema;
  return { ...json, type: 'object' };
}

/** Status values of the envelope, for its compact schema: exactly {@link ResultStatus}'s. */
const STATUS_VALUES: readonly string[] = ResultStatus.options;

/**
 * The output schema of an envelope-shaped result (DESIGN §6.3), compact: the seven fields are
 * required, `status` is one of {@link ResultStatus}, `data` is an object or null (its own schema
 * when the tool declares one); the other fields' shapes are documented in DESIGN §6.3 and left
 * open here. About 270 bytes per tool instead of 1.3 KB: with 29 tools, `tools/list` must stay
 * under 48 KB (ChatGPT fails discovery on larger catalogues). It accepts every envelope the zod
 * `envelopeSchema` accepts (the adapter still checks results against the zod one).
 */
export function envelopeJsonSchema(data: z.ZodType | null): JsonSchemaObject {
  let dataJson: Record<string, unknown> = { type: ['object', 'null'] };
  if (data !== null) {
    const rendered = render(data, 'output');
    dataJson = { ...rendered, type: ['object', 'null'] };
  }
  return {
    type: 'object',
    properties: { status: { enum: STATUS_VALUES }, data: dataJson },
    required: ['status', 'type', 'context', 'data', 'error', 'hints', 'actions'],
  };
}

function renderOutput(output: z.ZodType): JsonSchemaObject {
  const data = envelopeDataOf(output);
  if (data === undefined) return render(output, 'output');
  return envelopeJsonSchema(data);
}

/**
 * Renders one tool's `tools/list` entry. Pure and deterministic: call it once per tool at start-up
 * and reuse the value (rendering costs far more than serving it). `annotations` carry the hints
 * only: the title is the tool's own `title` (MCP 2025-06-18), not repeated in the annotations.
 * @throws Error when a schema root is not an object (a catalogue bug).
 */
export function toolListing(tool: ToolDef): ToolListing {
  const listing: ToolListing = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: render(tool.input, 'input'),
    annotations: { ...tool.annotations },
  };
  if (tool.output) listing.outputSchema = renderOutput(tool.output);
  if (tool.meta) listing._meta = tool.meta;
  return listing;
}

/** Outcome of {@link parseToolArguments}. */
export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * Parses tool arguments with the tool's input schema (defaults applied, per-action rules checked).
 * A failure is a value with a one-line message naming each bad field, for an `isError` result
 * (MCP 2025-11-25 SEP-1303: input validation errors are tool execution errors).
 */
export function parseToolArguments(tool: ToolDef, args: unknown): ParsedArguments {
  const parsed = tool.input.safeParse(args ?? {});
  if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
  const problems = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(arguments)'}: ${i.message}`);
  return { ok: false, message: `invalid arguments for ${tool.name}: ${problems.join('; ')}` };
}

/**
 * Whether results are checked against the full output schema (zod) of their tool: under the test
 * runner (`HOLDFAST_TEST_RUN`, which also sets `HOLDFAST_CHECK_OUTPUT=1`) or when
 * `HOLDFAST_CHECK_OUTPUT=1`. In service only {@link checkEnvelopeShape} runs: the daemon builds every
 * envelope from typed code, and a full parse of a large result cost more than its read (issue 10).
 * Read once from the environment at load.
 */
const env = typeof process === 'undefined' ? {} : process.env;
export const FULL_OUTPUT_CHECK = env.HOLDFAST_CHECK_OUTPUT === '1' || (env.HOLDFAST_TEST_RUN ?? '') !== '';

const ENVELOPE_KEYS = ['status', 'type', 'context', 'data', 'error', 'hints', 'actions'] as const;

/**
 * The cheap check of a result in service: for a tool with an output schema, `structured` must be
 * a §6.3 envelope — an object with the seven fields, `status` a string, `context`/`hints` objects,
 * `actions` an array, `data`/`error` an object or null.
 * @returns null when it has that shape (or the tool declares no output schema), else what is wrong.
 */
export function checkEnvelopeShape(tool: ToolDef, structured: unknown): string | null {
  if (!tool.output) return null;
  if (structured === null || typeof structured !== 'object' || Array.isArray(structured)) return '(root): expected an envelope object';
  const e = structured as Record<string, unknown>;
  for (const k of ENVELOPE_KEYS) if (!(k in e)) return `${k}: missing`;
  if (typeof e.status !== 'string') return 'status: expected a string';
  for (const k of ['context', 'hints'] as const) if (e[k] === null || typeof e[k] !== 'object') return `${k}: expected an object`;
  if (!Array.isArray(e.actions)) return 'actions: expected an array';
  for (const k of ['data', 'error'] as const) if (typeof e[k] !== 'object') return `${k}: expected an object or null`;
  return null;
}

/**
 * Parses a tool's structured result with its output schema.
 * @returns null when it conforms (or the tool declares none: a pass-through tool, issue 13),
 *   else a one-line description of the first problems.
 */
export function checkToolOutput(tool: ToolDef, structured: unknown): string | null {
  if (!tool.output) return null;
  const parsed = tool.output.safeParse(structured);
  if (parsed.success) return null;
  return parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}
