import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HoldfastConfig } from '@holdfast/shared/config';
import { sandboxRequirement } from './requirement.js';
import { assertSandboxReadable, assertSandboxWritable, sandboxAccess, unmetRequirement, type SessionSandbox } from './session-sandbox.js';

const cfg = (sandbox: Record<string, unknown>) => HoldfastConfig.parse({ security: { sandbox } }).security.sandbox;

describe('sandbox requirement per principal (issue 17)', () => {
  it('defaults keep today\'s behaviour: off, network on, the package caches writable', () => {
    const r = sandboxRequirement(cfg({}), 'owner', undefined, '/home/u');
    assert.equal(r.mode, 'off');
    assert.equal(r.network, 'on');
    assert.deepEqual(r.writable, ['/home/u/.npm', '/home/u/.cache', '/home/u/.cargo/registry', '/home/u/go/pkg']);
  });

  it('a principal entry (exact name beats the longest pattern) and the call context replace keys', () => {
    const c = cfg({ mode: 'off', principals: { 'oauth:*': { mode: 'auto' }, 'oauth:chatgpt*': { network: false }, ci: { mode: 'bwrap', writable: ['/srv/cache'] } } });
    const o = sandboxRequirement(c, 'oauth:chatgpt-1', undefined, '/h');
    assert.deepEqual([o.mode, o.network, o.source], ['off', 'off', 'security.sandbox.principals["oauth:chatgpt*"]']);
    const any = sandboxRequirement(c, 'oauth:claude', undefined, '/h');
    assert.equal(any.mode, 'auto');
    const ci = sandboxRequirement(c, 'ci', { network: 'off' }, '/h');
    assert.deepEqual([ci.mode, ci.network, ci.writable, ci.source], ['bwrap', 'off', ['/srv/cache'], 'principal "ci"']);
  });

  it('refuses relative writable paths in config.yaml', () => {
    assert.throws(() => cfg({ writable: ['cache'] }));
  });

  it('a live session meets a requirement only with the same or stricter confinement', () => {
    const s: SessionSandbox = { mode: 'bwrap', network: 'on', writable: ['/ws'], hidden: [] };
    const need = (mode: 'auto' | 'landlock' | 'off', network: 'on' | 'off') => ({ mode, network, writable: [], source: 'x' });
    assert.equal(unmetRequirement(null, need('off', 'off')), null);
    assert.match(unmetRequirement(null, need('auto', 'on'))!, /without a sandbox/);
    assert.equal(unmetRequirement(s, need('auto', 'on')), null);
    assert.match(unmetRequirement(s, need('landlock', 'on'))!, /under bwrap/);
    assert.match(unmetRequirement(s, need('auto', 'off'))!, /network is on/);
  });

  it('the file tools see what the mounts make of a path: the deepest mount decides', () => {
    const s: SessionSandbox = { mode: 'bwrap', network: 'off', writable: ['/home/u', '/home/u/.holdfast/ws'], hidden: ['/home/u/.holdfast'] };
    assert.equal(sandboxAccess(s, '/home/u/a.txt').access, 'writable');
    assert.equal(sandboxAccess(s, '/home/u/.holdfast/token').access, 'hidden');
    assert.equal(sandboxAccess(s, '/home/u/.holdfast/ws/x').access, 'writable');
    assert.equal(sandboxAccess(s, '/etc/passwd').access, 'read-only');
    assert.throws(() => assertSandboxReadable(s, '/home/u/.holdfast/config.yaml', 'x'), /hides/);
    assert.throws(() => assertSandboxWritable(s, '/etc/x', 'x'), /read-only/);
    assert.doesNotThrow(() => assertSandboxWritable(null, '/etc/x', 'x'));
  });
});
