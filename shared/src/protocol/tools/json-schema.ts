import * as z from 'zod';
import type { ToolDef } from './envelope.js';

/**
 * JSON Schema rendering and argument parsing of the tool catalogue, so processes that serve MCP
 * (the adapter) never import zod themselves and every process renders the same schemas.
 *
 * Schemas are JSON Schema 2020-12 (the default dialect since MCP 2025-11-25), rendered from the
 * zod definitions in this folder: input schemas with `io: 'input'` (fields with defaults are
 * optional), output schemas with `io: 'output'`. Both always have `type: "object"` at the root
 * and are self-contained (zod inlines every sub-schema; no `$ref` leaves the document); open
 * objects say `additionalProperties: true`, never `{}`.
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

/**
 * zod renders "any further properties" (`z.looseObject`, `z.record(z.string(), z.unknown())`) as
 * `additionalProperties: {}`; JSON Schema means the same by `true`, which is what strict checkers
 * (MCP Inspector `--strict`) expect. Applied to every node zod renders.
 */
function looseAsTrue(ctx: { jsonSchema: Record<string, unknown> }): void {
  const extra = ctx.jsonSchema.additionalProperties;
  if (extra !== null && typeof extra === 'object' && !Array.isArray(extra) && Object.keys(extra).length === 0) ctx.jsonSchema.additionalProperties = true;
}

/**
 * In input schemas an open object without properties (`z.looseObject({})`, e.g. `activity`) renders
 * as just `{"type": "object"}` — the same set of values in fewer bytes, since every session tool
 * carries one (issue 11: the catalogue must stay under 48 KB).
 */
function compactInput(ctx: { jsonSchema: Record<string, unknown> }): void {
  looseAsTrue(ctx);
  const j = ctx.jsonSchema;
  if (j.type === 'object' && j.additionalProperties === true && j.properties && typeof j.properties === 'object' && Object.keys(j.properties).length === 0) {
    delete j.properties;
    delete j.additionalProperties;
  }
}

function render(schema: z.ZodType, io: 'input' | 'output'): JsonSchemaObject {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, override: io === 'input' ? compactInput : looseAsTrue }) as Record<string, unknown>;
  if (json.type !== undefined && json.type !== 'object') {
    throw new Error(`tool schemas must describe objects (got type ${JSON.stringify(json.type)})`);
  }
  return { ...json, type: 'object' };
}

/**
 * Renders one tool's `tools/list` entry. Pure and deterministic: call it once per tool at start-up
 * and reuse the value (rendering costs far more than serving it).
 * @throws Error when a schema root is not an object (a catalogue bug).
 */
export function toolListing(tool: ToolDef): ToolListing {
  const listing: ToolListing = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: render(tool.input, 'input'),
    annotations: { title: tool.title, ...tool.annotations },
  };
  if (tool.output) listing.outputSchema = render(tool.output, 'output');
  if (tool.meta) listing._meta = tool.meta;
  return listing;
}

/** Outcome of {@link parseToolArguments}. */
export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * Parses tool arguments with the tool's input schema (defaults applied, unknown keys dropped).
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
