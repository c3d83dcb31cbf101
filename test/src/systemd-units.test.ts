import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DAEMON_NODE_FLAGS } from '@holdfast/shared/constants';
import { REPO_ROOT } from './_harness/home.js';

const UNITS = ['holdfastd.service', 'holdfast-http.service'].map((u) => join(REPO_ROOT, 'systemd', u));

describe('systemd user units (DESIGN §4.5)', () => {
  it('the daemon unit uses KillMode=process so a unit restart keeps every guardian', () => {
    const text = readFileSync(UNITS[0]!, 'utf8');
    assert.match(text, /^KillMode=process$/m);
    assert.match(text, /^RestartForceExitStatus=75$/m);
    assert.match(text, /^Environment=HOLDFAST_SUPERVISED=systemd$/m);
  });

  it('the daemon unit starts node with the daemon\'s V8 flags (issue 10: idle RSS), like every other launcher', () => {
    const exec = /^ExecStart=(.*)$/m.exec(readFileSync(UNITS[0]!, 'utf8'))![1]!.split(' ');
    assert.deepEqual(exec.slice(1, 1 + DAEMON_NODE_FLAGS.length), [...DAEMON_NODE_FLAGS]);
  });

  it('systemd-analyze verify accepts both units (.ci/run installs systemd)', async () => {
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      execFile('systemd-analyze', ['verify', ...UNITS], { timeout: 30_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code?: unknown }).code as number) : 1) : 0, out: stdout + stderr });
      });
    });
    const ours = r.out.split('\n').filter((l) => /holdfast/.test(l));
    assert.deepEqual(ours, [], `systemd-analyze complained about our units:\n${r.out}`);
    assert.equal(r.code, 0, r.out);
  });
});
