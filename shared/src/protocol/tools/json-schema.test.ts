import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOOLS } from './index.js';
import { ResultStatus } from './envelope.js';
import { checkEnvelopeShape, envelopeJsonSchema, FULL_OUTPUT_CHECK, toolListing } from './json-schema.js';

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
  it('never say additionalProperties: {} (MCP Inspector --strict); input schemas never say additionalProperties at all (Gemini)', () => {
    for (const tool of TOOLS) {
      const l = toolListing(tool);
      assert.deepEqual(additionalProperties(l.inputSchema), [], `${tool.name} input`);
      for (const a of additionalProperties(l.outputSchema)) {
        const v = a.value;
        const empty = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
        assert.ok(!empty, `${tool.name} output ${a.path} is {}`);
      }
    }
  });

  it('the shared envelope output schema is under 280 bytes, without $schema, and its hints and data take any keys', () => {
    const envelope = envelopeJsonSchema(null);
    const bytes = Buffer.byteLength(JSON.stringify(envelope));
    assert.ok(bytes <= 280, `envelope outputSchema is ${bytes} bytes`);
    assert.ok(!('$schema' in envelope));
    for (const tool of TOOLS.filter((t) => t.output !== undefined)) {
      const out = toolListing(tool).outputSchema as unknown as { properties: Record<string, Record<string, unknown>>; required: string[] };
      assert.equal(out.properties.hints, undefined, `${tool.name}: hints are open`);
      assert.deepEqual((out.properties.status as { enum: string[] }).enum, ResultStatus.options, `${tool.name}: every status`);
      assert.deepEqual(out.properties.data!.type, ['object', 'null'], tool.name);
      assert.deepEqual([...out.required].sort(), ['actions', 'context', 'data', 'error', 'hints', 'status', 'type'], tool.name);
    }
  });

  it('listings carry the title once (not repeated in annotations) and no integer bounds zod adds', () => {
    for (const tool of TOOLS) {
      const l = toolListing(tool);
      assert.equal(l.title, tool.title);
      assert.ok(!('title' in l.annotations), tool.name);
      const text = JSON.stringify(l);
      assert.ok(!text.includes(String(Number.MAX_SAFE_INTEGER)), `${tool.name} renders ±MAX_SAFE_INTEGER bounds`);
      assert.ok(!text.includes('"propertyNames"'), `${tool.name} renders propertyNames`);
    }
  });
});

describe('output checks (issue 10)', () => {
  const read = TOOLS.find((t) => t.name === 'read')!;
  const ok = { status: 'succeeded', type: 'read.file', context: {}, data: { x: 1 }, error: null, hints: {}, actions: [] };

  it('the test runner turns the full output-schema check on (HOLDFAST_CHECK_OUTPUT=1)', () => {
    assert.equal(FULL_OUTPUT_CHECK, true, 'run through test/run-tests.mjs: tests must check every result against its full schema');
  });

  it('in service only the envelope shape is checked: the seven fields with their kinds', () => {
    assert.equal(checkEnvelopeShape(read, ok), null);
    assert.equal(checkEnvelopeShape(read, { ...ok, data: null, error: { code: 'X', message: 'm', retryable: false } }), null);
    for (const bad of [null, [], 'x', { ...ok, status: 1 }, { ...ok, actions: {} }, { ...ok, hints: null }, { ...ok, data: 'x' }]) assert.notEqual(checkEnvelopeShape(read, bad), null, JSON.stringify(bad));
    const { hints: _h, ...missing } = ok;
    assert.match(checkEnvelopeShape(read, missing)!, /hints/);
  });
});
