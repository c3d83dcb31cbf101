import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from './_harness/home.js';

const UNITS = ['holdfastd.service', 'holdfast-http.service'].map((u) => join(REPO_ROOT, 'systemd', u));

describe('systemd user units (DESIGN §4.5)', () => {
  it('the daemon unit uses KillMode=process so a unit restart keeps every guardian', () => {
    const text = readFileSync(UNITS[0]!, 'utf8');
    assert.match(text, /^KillMode=process$/m);
    assert.match(text, /^RestartForceExitStatus=75$/m);
    assert.match(text, /^Environment=HOLDFAST_SUPERVISED=systemd$/m);
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
