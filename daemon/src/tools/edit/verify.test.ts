import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyWaitMs } from './verify.js';

describe('verify_command wait', () => {
  it('is limits.verify_wait_ms, and ends well before the request timeout', () => {
    assert.equal(verifyWaitMs({ verify_wait_ms: 20_000, request_timeout_ms: 120_000 }), 20_000);
    assert.equal(verifyWaitMs({ verify_wait_ms: 90_000, request_timeout_ms: 60_000 }), 50_000);
    assert.equal(verifyWaitMs({ verify_wait_ms: 20_000, request_timeout_ms: 5_000 }), 0);
  });
});
