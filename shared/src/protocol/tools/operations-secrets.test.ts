import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { environmentReadTool, environmentTool } from './environment.js';
import type { ToolDef } from './envelope.js';
import { executeTool } from './execute.js';
import { TOOLS } from './index.js';
import { toolListing } from './json-schema.js';
import { operationBatchTool } from './operation-batch.js';
import { operationManageTool } from './operation-manage.js';
import { secretProvideTool } from './secret-provide.js';

/** Bytes of a tool's `tools/list` entry without its outputSchema (before the generic work-tracking fields, as issue 11 counts). */
const listingBytes = (t: ToolDef): number => Buffer.byteLength(JSON.stringify({ ...toolListing(t), outputSchema: undefined }));

describe('issue 12 tools in the catalogue', () => {
  it('stay within their listing budgets', () => {
    // operation_batch: 960, not 900 — its steps carry their four keys in the schema (Gemini refuses a bare object item; issue 8 catalogue rules).
    for (const [tool, max] of [[operationBatchTool, 960], [operationManageTool, 700], [environmentTool, 450], [environmentReadTool, 550], [secretProvideTool, 650]] as const) {
      const bytes = listingBytes(tool);
      assert.ok(bytes <= max, `${tool.name}: ${bytes} bytes (budget ${max})`);
    }
    const secrets = (toolListing(executeTool).inputSchema.properties as Record<string, unknown>).secrets;
    const bytes = Buffer.byteLength(`"secrets":${JSON.stringify(secrets)},`);
    assert.ok(bytes <= 100, `execute.secrets: ${bytes} bytes`);
  });

  it('have flat object input schemas every function-calling API accepts (no top-level combinators, no $ref)', () => {
    for (const name of ['operation_batch', 'operation_manage', 'environment', 'environment_read', 'secret_provide']) {
      const t = TOOLS.find((x) => x.name === name)!;
      const schema = toolListing(t).inputSchema;
      assert.equal(schema.type, 'object', name);
      for (const k of ['oneOf', 'anyOf', 'allOf', 'not', 'enum', '$ref']) assert.equal(k in schema, false, `${name} has top-level ${k}`);
      assert.doesNotMatch(JSON.stringify(schema), /\$ref|\$defs/, name);
      assert.ok(t.workTracking, `${name} is a session tool`);
    }
  });
});
