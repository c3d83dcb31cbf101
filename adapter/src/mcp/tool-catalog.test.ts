import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findTool } from '@holdfast/shared/tools';
import { retryPolicyFor, ToolCatalog } from './tool-catalog.js';

/** DESIGN §4.5: after a daemon reconnect the adapter re-sends only calls that are safe to repeat. */
describe('retry policy per tool and arguments', () => {
  const catalog = new ToolCatalog();
  const retry = (tool: string, args: Record<string, unknown>) => catalog.get(tool)!.retryFor(args);

  it('read-only and idempotent tools are re-sent', () => {
    for (const tool of ['workspace', 'read', 'observe', 'runtime_read', 'session']) {
      if (findTool(tool) === undefined) continue;
      assert.equal(retry(tool, {}), 'idempotent', tool);
    }
  });

  it('execute: attach and status are re-sent; run only with an idempotency_key; stop and stdin never', () => {
    assert.equal(retry('execute', { action: 'attach', remote_session_id: 'rs', execution_task_id: 't' }), 'idempotent');
    assert.equal(retry('execute', { action: 'status', remote_session_id: 'rs', execution_task_id: 't' }), 'idempotent');
    assert.equal(retry('execute', { action: 'run', remote_session_id: 'rs', command: 'make', idempotency_key: 'k' }), 'idempotent');
    assert.equal(retry('execute', { remote_session_id: 'rs', command: 'make', idempotency_key: 'k' }), 'idempotent', 'run is the default action');
    assert.equal(retry('execute', { action: 'run', remote_session_id: 'rs', command: 'make' }), 'never');
    assert.equal(retry('execute', { action: 'stop', remote_session_id: 'rs', execution_task_id: 't' }), 'never');
    assert.equal(retry('execute', { action: 'stdin', remote_session_id: 'rs', execution_task_id: 't', text: 'y' }), 'never');
  });

  it('writing tools without an argument rule are never re-sent', () => {
    for (const tool of ['edit', 'move_out']) {
      const def = findTool(tool);
      if (def === undefined) continue;
      assert.equal(retryPolicyFor(def)({}), 'never', tool);
    }
  });
});
