import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTimeoutCancel } from './server-factory.js';

describe('isTimeoutCancel: a client request timeout is not a request to stop', () => {
  it('recognises the reasons the official SDKs send when their own timeout fires', () => {
    for (const r of ['McpError: MCP error -32001: Request timed out', 'McpError: MCP error -32001: Maximum total timeout exceeded', 'SdkError: Request timed out', 'REQUEST_TIMEOUT', 'timeout', 'Timed out after 60s']) {
      assert.equal(isTimeoutCancel(r), true, r);
    }
  });
  it('treats every other reason (or none) as an explicit cancel', () => {
    for (const r of [undefined, '', 'the user pressed Esc', 'AbortError: This operation was aborted', 'User cancelled', 42]) {
      assert.equal(isTimeoutCancel(r), false, String(r));
    }
  });
});
