import * as z from 'zod';
import { renderedAs } from './json-schema.js';

/** Parses a string holding a JSON object; any other value is an issue. */
const objectInString = z.string().transform((text, ctx): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // reported below
  }
  ctx.addIssue({ code: 'custom', message: 'arguments must be a JSON object, or a string holding one' });
  return z.NEVER;
});

/**
 * Arguments a tool passes on to another one (`mcp_tool` call, `skill_tool` call; issue 8): an
 * object whose keys only the target knows. `tools/list` advertises a string holding the JSON
 * object — Gemini refuses an object parameter without declared properties, and every API takes a
 * string — and the object itself is accepted too (what most models send). Parses to the object.
 */
export const PassThroughArguments = renderedAs(z.union([z.looseObject({}), objectInString]), { type: 'string' });
