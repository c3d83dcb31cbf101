import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareReadings } from './compare.js';
import type { EnvironmentReading } from './reading.js';

const base: EnvironmentReading = {
  taken_at: 1,
  duration_ms: 5,
  os: { name: 'Debian 12', type: 'Linux', kernel: '6.1', arch: 'x64', hostname: 'h' },
  cpu: { count: 2, model: 'x' },
  memory: { total_bytes: 100, free_bytes: 50 },
  disk: { path: '/w', free_bytes: 1000, total_bytes: 10_000 },
  locale: { LANG: 'C.UTF-8' },
  shell: { path: '/bin/bash', env: '/bin/bash' },
  path: ['/usr/bin', '/bin'],
  toolchains: { node: { status: 'ok', version: '20.1.0', path: '/usr/bin/node' }, go: { status: 'missing' } },
  env_names: ['HOME', 'PATH'],
};

describe('compareReadings (issue 12)', () => {
  it('lists added, removed and changed facts; ignores time, free memory and small disk moves', () => {
    const after: EnvironmentReading = {
      ...base,
      taken_at: 99,
      memory: { total_bytes: 100, free_bytes: 1 },
      disk: { path: '/w', free_bytes: 1100, total_bytes: 10_000 },
      path: ['/opt/fake/bin', '/usr/bin', '/bin'],
      toolchains: { node: { status: 'ok', version: '22.0.0', path: '/usr/bin/node' }, go: { status: 'ok', version: '1.22.1', path: '/opt/fake/bin/go' } },
      env_names: ['HOME', 'PATH', 'GOPATH'],
    };
    const d = compareReadings(base, after);
    const keys = (l: { key: string }[]) => l.map((c) => c.key).sort();
    assert.deepEqual(keys(d.added), ['env[GOPATH]', 'path[/opt/fake/bin]', 'toolchains.go', 'toolchains.go.path']);
    assert.deepEqual(d.removed, []);
    assert.deepEqual(
      d.changed.map((c) => `${c.key}:${c.from}->${c.to}`).sort(),
      ['path[/bin]:1->2', 'path[/usr/bin]:0->1', 'toolchains.node:20.1.0->22.0.0'],
    );
    assert.deepEqual(compareReadings(after, base).removed.length, 4);
  });
});
