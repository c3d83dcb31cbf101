import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFunctionCallingTool, type ListedTool } from './catalog-rules.js';
import { PROFILES, TOOLS, WORK_TRACKING_KEYS } from './index.js';
import { parseToolArguments, toolListing } from './json-schema.js';
import { moveOutTool } from './move-out.js';

/**
 * Issue 8 item 1: every tool of every profile has an input schema that the Anthropic, OpenAI and
 * Gemini function-calling APIs accept (rules and sources: docs/tool-schemas.md). The catalogue is
 * read from TOOLS, so tools added later are checked without touching this file.
 */
describe('tool catalogue: schemas every model API accepts (issue 8)', () => {
  for (const [profile, names] of Object.entries(PROFILES)) {
    const served = TOOLS.filter((t) => names.includes(t.name));
    it(`profile ${profile}: ${served.map((t) => t.name).join(', ')}`, () => {
      assert.ok(served.length > 0);
      for (const tool of served) {
        const problems = checkFunctionCallingTool(toolListing(tool));
        assert.deepEqual(problems, [], `${tool.name}: ${problems.map((p) => `${p.rule} ${p.at}: ${p.message}`).join('; ')}`);
      }
    });
  }

  it('every served tool is in the full profile', () => {
    for (const t of TOOLS) assert.ok(PROFILES.full.includes(t.name), t.name);
  });

  const base: ListedTool = { name: 'ok_tool', description: 'does a thing', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } };
  const rulesOf = (t: Partial<ListedTool>): string[] => checkFunctionCallingTool({ ...base, ...t }).map((p) => p.rule);
  const variants: [string, Partial<ListedTool>, string][] = [
    [
      'a top-level oneOf (the old move_out: Claude Code dropped the tool)',
      { inputSchema: { type: 'object', oneOf: [{ type: 'object', properties: { action: { type: 'string', enum: ['prepare'] } } }, { type: 'object', properties: { action: { type: 'string', enum: ['submit'] } } }] } },
      'R4-root-combinator',
    ],
    ['a top-level anyOf', { inputSchema: { type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ required: ['a'] }] } }, 'R4-root-combinator'],
    ['a root that is not an object', { inputSchema: { type: 'array', items: { type: 'string' } } }, 'R3-root-object'],
    ['no parameters at all (Gemini: properties should be non-empty)', { inputSchema: { type: 'object', properties: {} } }, 'R8-object-properties'],
    ['a free-form object parameter', { inputSchema: { type: 'object', properties: { env: { type: 'object' } } } }, 'R8-object-properties'],
    ['additionalProperties (unknown to Gemini)', { inputSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }, 'R6-keywords'],
    ['a $ref', { inputSchema: { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } } }, 'R5-no-refs'],
    ['$schema at the root', { inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'string' } } } }, 'R6-keywords'],
    ['a nested oneOf', { inputSchema: { type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'number' }] } } } }, 'R6-keywords'],
    ['const', { inputSchema: { type: 'object', properties: { a: { type: 'string', const: 'x' } } } }, 'R6-keywords'],
    ['a type list with null', { inputSchema: { type: 'object', properties: { a: { type: ['string', 'null'] } } } }, 'R7-type'],
    ['an array without items', { inputSchema: { type: 'object', properties: { a: { type: 'array' } } } }, 'R8-array-items'],
    ['a numeric enum', { inputSchema: { type: 'object', properties: { a: { type: 'integer', enum: [1, 2] } } } }, 'R9-enum'],
    ['format uuid', { inputSchema: { type: 'object', properties: { a: { type: 'string', format: 'uuid' } } } }, 'R10-format'],
    ['a parameter name with a dash', { inputSchema: { type: 'object', properties: { 'dry-run': { type: 'boolean' } } } }, 'R12-parameter-name'],
    ['a tool name with a dot', { name: 'files.read' }, 'R1-name'],
    ['a tool name starting with a digit', { name: '2read' }, 'R1-name'],
    ['a description over 1024 characters', { description: 'x'.repeat(1025) }, 'R2-description'],
  ];
  for (const [what, t, rule] of variants) {
    it(`refuses ${what} (${rule})`, () => {
      assert.ok(rulesOf(t).includes(rule), JSON.stringify(checkFunctionCallingTool({ ...base, ...t })));
    });
  }
  it('accepts a plain flat object with an action enum, nested objects and arrays', () => {
    assert.deepEqual(
      rulesOf({
        inputSchema: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: ['a', 'b'], default: 'a' },
            items: { type: 'array', items: { type: 'object', properties: { path: { type: 'string', minLength: 1 } }, required: ['path'] }, maxItems: 5 },
            n: { type: 'integer', minimum: 0, maximum: 10 },
          },
          required: ['action'],
        },
      }),
      [],
    );
  });
});

/** Budgets of the catalogue (issue 8): tools/list must stay < 48 KB with all ~29 wave-2 tools. */
describe('tool catalogue: size budgets (issue 8)', () => {
  const WAVE1 = ['workspace', 'session', 'read', 'edit', 'move_out', 'execute', 'observe', 'runtime_read'];
  const withoutOutput = (name: string): number => {
    const { outputSchema: _o, ...rest } = toolListing(TOOLS.find((t) => t.name === name)!);
    return Buffer.byteLength(JSON.stringify(rest));
  };
  /** A listing without its output schema and without the work-tracking fields issue 11 adds to every session tool (its own budget). */
  const ownBytes = (name: string): number => {
    const { outputSchema: _o, ...rest } = toolListing(TOOLS.find((t) => t.name === name)!);
    const props = { ...(rest.inputSchema.properties as Record<string, unknown>) };
    for (const k of WORK_TRACKING_KEYS) delete props[k];
    return Buffer.byteLength(JSON.stringify({ ...rest, inputSchema: { ...rest.inputSchema, properties: props } }));
  };
  it('the wave-1 tools list in at most 14 KB without their output schemas and the work-tracking fields', () => {
    const total = WAVE1.filter((n) => TOOLS.some((t) => t.name === n)).reduce((s, n) => s + ownBytes(n), 0);
    assert.ok(total <= 14 * 1024, `wave-1 listings are ${total} bytes`);
  });
  it('no tool lists in more than 3.5 KB without its output schema', () => {
    for (const t of TOOLS) assert.ok(withoutOutput(t.name) <= 3584, `${t.name}: ${withoutOutput(t.name)} bytes`);
  });
  it('the whole full-profile tools/list stays under 48 KB', () => {
    const size = Buffer.byteLength(JSON.stringify({ tools: TOOLS.map(toolListing) }));
    assert.ok(size < 48 * 1024, `tools/list is ${size} bytes`);
  });
});

/** move_out is one flat object now: the per-action rules are checked when arguments are parsed. */
describe('move_out per-action rules (issue 8)', () => {
  const uuid = '0b9f6e36-4ad6-4d3f-9d2c-2f6f1f2b8f11';
  const parse = (args: Record<string, unknown>) => parseToolArguments(moveOutTool, args);
  it('prepare needs purpose and targets; submit needs confirmation_uuid', () => {
    const p = parse({ action: 'prepare', remote_session_id: 'rs_x', targets: [{ path: 'a', kind: 'file' }] });
    assert.equal(p.ok, false);
    assert.match(!p.ok ? p.message : '', /action=prepare needs purpose/);
    const s = parse({ action: 'submit', remote_session_id: 'rs_x' });
    assert.match(!s.ok ? s.message : '', /action=submit needs confirmation_uuid/);
  });
  it('submit refuses the fields of prepare, naming them', () => {
    const r = parse({ action: 'submit', remote_session_id: 'rs_x', confirmation_uuid: uuid, purpose: 'p', targets: [{ path: 'a', kind: 'file' }] });
    assert.match(!r.ok ? r.message : '', /action=submit takes only action, remote_session_id, confirmation_uuid; remove purpose, targets/);
  });
  it('prepare refuses confirmation_uuid; unknown fields are refused; a bad uuid is named', () => {
    assert.equal(parse({ action: 'prepare', remote_session_id: 'rs_x', purpose: 'p', targets: [{ path: 'a', kind: 'file' }], confirmation_uuid: uuid }).ok, false);
    assert.equal(parse({ action: 'submit', remote_session_id: 'rs_x', confirmation_uuid: uuid, force: true }).ok, false);
    const bad = parse({ action: 'submit', remote_session_id: 'rs_x', confirmation_uuid: 'nope' });
    assert.match(!bad.ok ? bad.message : '', /confirmation_uuid: a UUID from action=prepare/);
  });
  it('accepts both actions in their exact form', () => {
    assert.equal(parse({ action: 'submit', remote_session_id: 'rs_x', confirmation_uuid: uuid }).ok, true);
    assert.equal(parse({ action: 'prepare', remote_session_id: 'rs_x', purpose: 'p', targets: [{ path: 'a', kind: 'file' }], idempotency_key: 'k' }).ok, true);
  });
});

/** Arguments passed on to another tool are advertised as a string holding a JSON object (issue 8). */
describe('pass-through arguments of mcp_tool and skill_tool (issue 8)', () => {
  for (const name of ['mcp_tool', 'skill_tool']) {
    const tool = TOOLS.find((t) => t.name === name);
    if (!tool) continue;
    it(`${name}: advertised as a string; a JSON object string or an object parses to the object`, () => {
      assert.equal((toolListing(tool).inputSchema.properties as Record<string, { type: string }>).arguments!.type, 'string');
      const base = { action: 'call', remote_session_id: 'rs_x', server: 's', tool: 't', skill: 'k' };
      for (const given of ['{"path":"a.txt","n":2}', { path: 'a.txt', n: 2 }]) {
        const r = parseToolArguments(tool, { ...base, arguments: given });
        assert.ok(r.ok, JSON.stringify(r));
        assert.deepEqual(r.ok && r.value.arguments, { path: 'a.txt', n: 2 });
      }
      for (const bad of ['[1,2]', 'not json', '"text"']) assert.equal(parseToolArguments(tool, { ...base, arguments: bad }).ok, false, bad);
    });
  }
});
