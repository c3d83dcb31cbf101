import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

/** What loading the daemon pulls in before any call (issue 10: an idle daemon's memory). */
describe('daemon modules loaded at start', () => {
  it('the OS keyring binding (@napi-rs/keyring, native) is loaded on first use, not with the daemon', async () => {
    await import('./daemon.js');
    const cache = createRequire(import.meta.url).cache;
    const loaded = Object.keys(cache).filter((k) => k.includes('@napi-rs/keyring') || k.includes('@napi-rs+keyring'));
    assert.deepEqual(loaded, []);
  });
});
