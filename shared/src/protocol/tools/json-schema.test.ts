import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOOLS } from './index.js';
import { toolListing } from './json-schema.js';

/** Every `additionalProperties` value in a rendered schema, with its JSON pointer. */
function additionalProperties(node: unknown, path = '#', out: { path: string; value: unknown }[] = []): { path: string; value: unknown }[] {
  if (Array.isArray(node)) node.forEach((x, i) => additionalProperties(x, `${path}/${i}`, out));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'additionalProperties') out.push({ path: `${path}/${k}`, value: v });
      additionalProperties(v, `${path}/${k}`, out);
    }
  }
  return out;
}

describe('tool JSON Schemas', () => {
  it('say additionalProperties: true for open objects, never {} (MCP Inspector --strict)', () => {
    let open = 0;
    for (const tool of TOOLS) {
      const l = toolListing(tool);
      for (const [which, schema] of [['input', l.inputSchema], ['output', l.outputSchema]] as const) {
        for (const a of additionalProperties(schema)) {
          const v = a.value;
          const empty = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
          assert.ok(!empty, `${tool.name} ${which} ${a.path} is {}`);
          if (v === true) open++;
        }
      }
    }
    assert.ok(open > 0, 'the loose envelope parts (data, hints, action arguments) are open objects');
  });

  it('the envelope hints of every output schema accept any keys', () => {
    for (const tool of TOOLS.filter((t) => t.output !== undefined)) {
      const hints = (toolListing(tool).outputSchema!.properties as Record<string, Record<string, unknown>>).hints!;
      assert.equal(hints.additionalProperties, true, tool.name);
    }
  });
});
