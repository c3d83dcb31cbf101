import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { checkFunctionCallingTool, TOOLS, WORK_TRACKING_KEYS } from '@holdfast/shared/tools';
import { TestHome } from './_harness/home.js';
import { legacyHeaders, modernRequest, ownerToken, rawRequest, rpcMessages, startAdapter, type AdapterProcess } from './_harness/mcp-adapter.js';

/**
 * `tools/list` of the `full` profile (DESIGN §6.2, field failure #22): the whole response stays
 * under 48 KB (ChatGPT fails discovery on large catalogues), and every input and output schema is
 * an object schema, self-contained (no `$ref` leaving the document, none dangling), compiles as
 * JSON Schema 2020-12, and accepts the §6.3 envelopes tools send. As served, every tool passes the
 * function-calling rules of the Anthropic, OpenAI and Gemini APIs (issue 8, docs/tool-schemas.md).
 */
const MAX_TOOLS_LIST_BYTES = 48 * 1024;

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const x of node) refs(x, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = doc;
  for (const part of ref.slice(1).split('/').filter((p) => p.length > 0)) {
    const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!cur || typeof cur !== 'object' || !(key in cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function checkSchema(tool: string, which: string, schema: Record<string, unknown> | undefined): void {
  assert.ok(schema, `${tool}.${which} is present`);
  assert.equal(schema.type, 'object', `${tool}.${which} has type "object"`);
  for (const r of refs(schema)) {
    assert.ok(r.startsWith('#'), `${tool}.${which}: $ref ${r} leaves the document`);
    assert.notEqual(resolvePointer(schema, r), undefined, `${tool}.${which}: $ref ${r} is dangling`);
  }
  // Compiles as JSON Schema (2020-12 engine), and the compiled validator runs.
  const validator = new AjvJsonSchemaValidator().getValidator(schema as never);
  assert.equal(typeof validator, 'function');
}

describe('tools/list for the full profile', () => {
  const h = new TestHome();
  let a: AdapterProcess;
  let token: string;
  before(async () => {
    a = await startAdapter(h, ['--tool-profile', 'full']);
    token = ownerToken(h);
  });
  after(async () => {
    await a.kill9();
    await h.cleanup();
  });

  it(`is under ${MAX_TOOLS_LIST_BYTES} bytes in both eras`, async () => {
    const legacy = await rawRequest(a.url, { headers: legacyHeaders(token), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    assert.equal(legacy.status, 200);
    const req = modernRequest(token, 2, 'tools/list');
    const modern = await rawRequest(a.url, { headers: req.headers, body: req.body });
    assert.equal(modern.status, 200);
    for (const [era, r] of [['2025-11-25', legacy], ['2026-07-28', modern]] as const) {
      const bytes = Buffer.byteLength(r.body);
      assert.ok(bytes < MAX_TOOLS_LIST_BYTES, `${era} tools/list response is ${bytes} bytes`);
      const tools = (rpcMessages(r)[0]!.result as { tools: ListedTool[] }).tools;
      assert.deepEqual(tools.map((t) => t.name), TOOLS.map((t) => t.name), `${era}: every served tool, in catalogue order`);
    }
  });

  it('skill_tool and mcp_tool each take about 900 bytes of the listing (without outputSchema and the work-tracking fields; issue 13)', async () => {
    const r = await rawRequest(a.url, { headers: legacyHeaders(token), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    const tools = (rpcMessages(r)[0]!.result as { tools: ListedTool[] }).tools;
    for (const name of ['skill_tool', 'mcp_tool']) {
      const { outputSchema: _o, ...listing } = tools.find((t) => t.name === name)!;
      // The work-tracking fields every session tool shares (issue 11) are counted once for all tools, not here.
      const { activity: _a, plan_id: _p, plan_task_id: _t, ...own } = listing.inputSchema.properties as Record<string, unknown>;
      const bytes = Buffer.byteLength(JSON.stringify({ ...listing, inputSchema: { ...listing.inputSchema, properties: own } }));
      assert.ok(bytes <= 1000, `${name} listing is ${bytes} bytes`);
      const props = listing.inputSchema.properties as Record<string, { enum?: string[] }>;
      assert.deepEqual(props.action!.enum, ['list', 'describe', 'call']);
      for (const k of ['oneOf', 'anyOf', 'allOf', '$ref']) assert.equal(listing.inputSchema[k], undefined, `${name} has no top-level ${k}`);
    }
  });

  it('has valid, self-contained object schemas, annotations and names for every tool', async () => {
    const r = await rawRequest(a.url, { headers: legacyHeaders(token), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    const tools = (rpcMessages(r)[0]!.result as { tools: ListedTool[] }).tools;
    const failedEnvelope = { status: 'failed', type: 'error', context: {}, data: null, error: { code: 'DAEMON_UNAVAILABLE', message: 'x', retryable: true }, hints: {}, actions: [] };
    const succeededEnvelope = {
      status: 'accepted',
      type: 'execute.running',
      context: { remote_session_id: 'rs_x', execution_task_id: 'task_x' },
      data: { output: 'x', nested: { any: [1, 'two'] } },
      error: null,
      hints: { wait_capped_ms: 50000 },
      actions: [{ tool: 'execute', arguments: { action: 'attach', remote_session_id: 'rs_x' }, reason: 'wait again' }],
    };
    for (const t of tools) {
      assert.match(t.name, /^[A-Za-z0-9_.-]{1,128}$/);
      assert.ok(t.title && t.description && t.description.length > 20, `${t.name} has a title and a description`);
      checkSchema(t.name, 'inputSchema', t.inputSchema);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        assert.equal(typeof t.annotations?.[hint], 'boolean', `${t.name} annotation ${hint}`);
      }
      // mcp_tool passes upstream results through: it declares no outputSchema (issue 13).
      if (t.name === 'mcp_tool') {
        assert.equal(t.outputSchema, undefined, 'mcp_tool has no outputSchema');
        continue;
      }
      checkSchema(t.name, 'outputSchema', t.outputSchema);
      const validate = new AjvJsonSchemaValidator().getValidator(t.outputSchema as never);
      const verdict = validate(failedEnvelope);
      assert.equal(verdict.valid, true, `${t.name}: the adapter's failure envelope matches its outputSchema (${verdict.errorMessage ?? ''})`);
      if (t.name !== 'workspace') {
        const ok = validate(succeededEnvelope);
        assert.equal(ok.valid, true, `${t.name}: a succeeded envelope matches its outputSchema (${ok.errorMessage ?? ''})`);
      }
      assert.equal(validate({ ...failedEnvelope, status: 'done' }).valid, false, `${t.name}: an unknown status is refused`);
      const problems = checkFunctionCallingTool(t);
      assert.deepEqual(problems, [], `${t.name} as served: ${problems.map((p) => `${p.rule} ${p.at}: ${p.message}`).join('; ')}`);
    }
  });
});
