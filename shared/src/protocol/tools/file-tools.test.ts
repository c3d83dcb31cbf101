import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editTool } from './edit.js';
import { toolListing } from './json-schema.js';
import { moveOutTool } from './move-out.js';
import { readTool } from './read.js';

describe('file tool schemas (issue 4; field failure #22)', () => {
  it('render as self-contained JSON Schemas with type "object" at the root', () => {
    for (const tool of [readTool, editTool, moveOutTool]) {
      const l = toolListing(tool);
      assert.equal(l.inputSchema.type, 'object', tool.name);
      assert.equal(l.outputSchema?.type, 'object', tool.name);
      assert.ok(!JSON.stringify(l).includes('"$ref"'), `${tool.name} has no $ref`);
    }
  });

  it('move_out submit accepts only remote_session_id and confirmation_uuid', () => {
    const uuid = '0b9f6e36-4ad6-4d3f-9d2c-2f6f1f2b8f11';
    assert.equal(moveOutTool.input.safeParse({ action: 'submit', remote_session_id: 'rs_x', confirmation_uuid: uuid }).success, true);
    for (const extra of [{ targets: [] }, { purpose: 'p' }, { idempotency_key: 'k' }]) {
      assert.equal(moveOutTool.input.safeParse({ action: 'submit', remote_session_id: 'rs_x', confirmation_uuid: uuid, ...extra }).success, false, JSON.stringify(extra));
    }
    assert.equal(moveOutTool.input.safeParse({ action: 'submit', remote_session_id: 'rs_x' }).success, false);
    assert.equal(moveOutTool.input.safeParse({ action: 'prepare', remote_session_id: 'rs_x', purpose: 'p', targets: [{ path: 'a', kind: 'file' }], confirmation_uuid: uuid }).success, false);
  });

  it('prepare is marked read-only in _meta while the tool is destructive', () => {
    assert.equal(moveOutTool.annotations.destructiveHint, true);
    assert.deepEqual((moveOutTool.meta['holdfast/actions'] as { prepare: unknown }).prepare, { readOnlyHint: true });
    assert.equal(readTool.annotations.readOnlyHint, true);
    assert.equal(readTool.annotations.idempotentHint, true);
  });
});
