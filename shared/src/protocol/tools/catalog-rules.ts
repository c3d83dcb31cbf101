/**
 * What the model APIs that MCP clients forward tools to accept (issue 8; the rules and their
 * sources are in docs/tool-schemas.md): a tool whose name, description or input schema one of them
 * refuses is dropped by the client (Claude Code) or fails the whole request (OpenAI, Gemini). Each
 * rule below names the API(s) it comes from; every tool of every profile must pass all of them.
 *
 * The checks read a rendered `tools/list` entry (plain JSON), so they apply the same way to the
 * catalogue in this process and to what an adapter serves over the wire.
 */

/** One broken rule: its id (docs/tool-schemas.md), where (JSON pointer) and what. */
export interface SchemaViolation {
  rule: string;
  at: string;
  message: string;
}

/** A `tools/list` entry as far as the rules look at it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** Tool names: Anthropic and OpenAI `^[a-zA-Z0-9_-]{1,64}$`; Gemini must start with a letter or `_`. */
export const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** Parameter names (Gemini): start with a letter or `_`, then letters, digits, `_`; at most 64. */
export const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** OpenAI refuses a function description longer than this (`string_above_max_length`). */
export const MAX_DESCRIPTION_CHARS = 1024;
/** OpenAI structured-output limits, kept for every tool (nesting levels, properties, enum values). */
export const MAX_NESTING = 10;
export const MAX_PROPERTIES = 5000;
export const MAX_ENUM_VALUES = 1000;

/**
 * Keywords of Gemini's function-parameter `Schema` (a subset of OpenAPI 3.0), which Anthropic and
 * OpenAI also accept. Anything else (`$ref`, `$defs`, `oneOf`, `allOf`, `not`, `const`,
 * `additionalProperties`, `propertyNames`, `exclusiveMinimum`, `$schema`, …) is refused by at least
 * one of the three.
 */
export const ALLOWED_KEYWORDS: ReadonlySet<string> = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'minItems', 'maxItems', 'properties', 'required',
  'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default',
  'minimum', 'maximum',
]);
/** Keywords refused at the root of `input_schema` (Anthropic: "does not support oneOf, allOf, or anyOf at the top level"). */
const ROOT_FORBIDDEN = ['oneOf', 'anyOf', 'allOf', 'not', 'enum', 'const', '$ref'];
/** Types of Gemini's `Type` enum, in JSON Schema spelling (no `null`: use `nullable`). */
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
/** `format` values Gemini documents, per type. */
const FORMATS: Readonly<Record<string, readonly string[]>> = { string: ['enum', 'date-time'], integer: ['int32', 'int64'], number: ['float', 'double'] };

/**
 * Checks one tool listing against every rule. Returns the violations (empty: every API accepts it).
 */
export function checkFunctionCallingTool(tool: ListedTool): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  const add = (rule: string, at: string, message: string): void => {
    out.push({ rule, at, message });
  };
  if (!TOOL_NAME.test(tool.name)) add('R1-name', '', `tool name ${JSON.stringify(tool.name)} must match ${TOOL_NAME.source}`);
  const description = tool.description ?? '';
  if (description.trim() === '') add('R2-description', '', 'the tool has no description');
  if (description.length > MAX_DESCRIPTION_CHARS) add('R2-description', '', `description is ${description.length} characters (OpenAI allows ${MAX_DESCRIPTION_CHARS})`);

  const root = tool.inputSchema;
  if (root.type !== 'object') add('R3-root-object', '#', `input schema root must be type "object" (got ${JSON.stringify(root.type)})`);
  for (const k of ROOT_FORBIDDEN) if (k in root) add('R4-root-combinator', `#/${k}`, `input schema root must not use ${k}`);
  const counts = { properties: 0, enums: 0 };
  walk(root, '#', 1, add, counts);
  if (counts.properties > MAX_PROPERTIES) add('R11-limits', '#', `${counts.properties} properties (at most ${MAX_PROPERTIES})`);
  if (counts.enums > MAX_ENUM_VALUES) add('R11-limits', '#', `${counts.enums} enum values (at most ${MAX_ENUM_VALUES})`);
  return out;
}

type Add = (rule: string, at: string, message: string) => void;

function walk(node: Record<string, unknown>, at: string, depth: number, add: Add, counts: { properties: number; enums: number }): void {
  if (depth > MAX_NESTING) add('R11-limits', at, `nested deeper than ${MAX_NESTING} levels`);
  for (const k of Object.keys(node)) {
    if (k === '$ref' || k === '$defs' || k === 'definitions') add('R5-no-refs', `${at}/${k}`, `${k} is not allowed (Gemini has no references; several clients do not resolve them)`);
    else if (!ALLOWED_KEYWORDS.has(k)) add('R6-keywords', `${at}/${k}`, `keyword ${k} is outside the subset every API accepts`);
  }
  const type = node.type;
  if (type === undefined && !Array.isArray(node.anyOf)) add('R7-type', at, 'every schema needs a type (or an anyOf of typed schemas)');
  if (type !== undefined && (typeof type !== 'string' || !TYPES.has(type))) add('R7-type', `${at}/type`, `type must be one of ${[...TYPES].join(', ')} (got ${JSON.stringify(type)}); say nullable: true instead of "null"`);
  if (node.format !== undefined) {
    const ok = typeof type === 'string' && (FORMATS[type] ?? []).includes(String(node.format));
    if (!ok) add('R10-format', `${at}/format`, `format ${JSON.stringify(node.format)} is not one Gemini accepts for ${String(type)}`);
  }
  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum) || node.enum.length === 0 || node.enum.some((v) => typeof v !== 'string')) add('R9-enum', `${at}/enum`, 'enum must be a non-empty list of strings');
    else counts.enums += node.enum.length;
    if (type !== 'string') add('R9-enum', `${at}/enum`, 'enum goes with type "string"');
  }
  const props = node.properties;
  if (type === 'object') {
    if (props === null || typeof props !== 'object' || Array.isArray(props) || Object.keys(props).length === 0) {
      add('R8-object-properties', at, 'an object schema needs a non-empty properties map (Gemini: "should be non-empty for OBJECT type")');
    }
  } else if (props !== undefined || node.required !== undefined) {
    add('R8-object-properties', at, 'properties and required belong to type "object" only');
  }
  if (props !== null && typeof props === 'object' && !Array.isArray(props)) {
    for (const [name, sub] of Object.entries(props as Record<string, unknown>)) {
      counts.properties++;
      if (!PARAMETER_NAME.test(name)) add('R12-parameter-name', `${at}/properties/${name}`, `parameter name must match ${PARAMETER_NAME.source}`);
      if (sub === null || typeof sub !== 'object' || Array.isArray(sub)) add('R7-type', `${at}/properties/${name}`, 'a property must be a schema object');
      else walk(sub as Record<string, unknown>, `${at}/properties/${name}`, depth + 1, add, counts);
    }
  }
  if (node.required !== undefined) {
    const names = props !== null && typeof props === 'object' ? Object.keys(props) : [];
    if (!Array.isArray(node.required) || node.required.some((r) => typeof r !== 'string' || !names.includes(r))) add('R8-object-properties', `${at}/required`, 'required must list properties of this object');
  }
  if (type === 'array') {
    const items = node.items;
    if (items === null || typeof items !== 'object' || Array.isArray(items)) add('R8-array-items', at, 'an array schema needs items (one schema)');
    else walk(items as Record<string, unknown>, `${at}/items`, depth + 1, add, counts);
  } else if (node.items !== undefined) {
    add('R8-array-items', `${at}/items`, 'items belongs to type "array" only');
  }
  if (node.anyOf !== undefined) {
    if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) add('R7-type', `${at}/anyOf`, 'anyOf must be a non-empty list');
    else node.anyOf.forEach((s, i) => (s !== null && typeof s === 'object' ? walk(s as Record<string, unknown>, `${at}/anyOf/${i}`, depth + 1, add, counts) : add('R7-type', `${at}/anyOf/${i}`, 'not a schema')));
  }
}
