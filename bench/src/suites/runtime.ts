import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pollUntil, TestHome } from '@holdfast/test/harness';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';

const S = 'runtime';

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Runs a shell pipeline and returns its wall time in ms. */
function timeShell(cmd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn('bash', ['-c', cmd], { stdio: 'ignore' });
    p.on('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${cmd} exited ${code}`))));
  });
}

/**
 * Issue 2 measures: cold open (guardian spawn → shell prompt ready) and warm open, a foreground
 * `true` through the control socket, guardian idle RSS against a bare idle node, and a PTY flood
 * (`yes | head -c 200M`) against the same pipeline into /dev/null with another session's echo
 * latency during the flood.
 */
export async function runtimeSuite(): Promise<void> {
  const h = new TestHome({ sessions: { max_live: 64 } });
  try {
    await h.startDaemon();
    const c = h.client();

    // Cold opens: thread affinity always spawns a new guardian.
    const openMs: number[] = [];
    const readyMs: number[] = [];
    const cold: string[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      const { session } = await c.call('session.open', { principal: 'bench', workspace: 'ws', affinity: 'thread' });
      openMs.push(performance.now() - t0);
      await pollUntil('shell ready', async () => (await c.call('session.get', { id: session.remote_session_id })).session.shell_ready, 10_000, 2);
      readyMs.push(performance.now() - t0);
      cold.push(session.remote_session_id);
    }
    report({ suite: S, measure: 'cold open (session.open returns)', value: `p50 ${fmtMs(median(openMs))} p95 ${fmtMs(percentile(openMs, 95))}`, baseline: 'goal ≤ 250 ms', ratio: '' });
    report({ suite: S, measure: 'cold open → shell prompt ready', value: `p50 ${fmtMs(median(readyMs))} p95 ${fmtMs(percentile(readyMs, 95))}`, baseline: 'goal ≤ 250 ms', ratio: '' });
    for (const id of cold) await c.call('session.kill', { id });

    const { session } = await c.call('session.open', { principal: 'bench', workspace: 'ws' });
    const id = session.remote_session_id;
    const warm = await sample(200, () => c.call('session.open', { principal: 'bench', workspace: 'ws' }));
    report({ suite: S, measure: 'warm open (same key)', value: `p50 ${fmtMs(median(warm))} p95 ${fmtMs(percentile(warm, 95))}`, baseline: 'goal ≤ 5 ms p50', ratio: '' });

    const execMs = await sample(300, async () => {
      const r = await c.call('session.exec', { id, command: 'true', wait_ms: 10_000 });
      if (!r.ok || r.cmd?.state !== 'exited') throw new Error('exec failed');
    });
    const execFloor = await sample(100, () => timeShell('true'));
    report({ suite: S, measure: 'foreground `true` via control socket', value: `p50 ${fmtMs(median(execMs))} p99 ${fmtMs(percentile(execMs, 99))}`, baseline: `bash -c true spawn ${fmtMs(median(execFloor))}`, ratio: ratio(median(execMs), median(execFloor)) });

    // Idle RSS: a fresh guardian left idle vs a bare idle node process.
    const idle = await c.call('session.open', { principal: 'idle', workspace: 'ws' });
    await pollUntil('idle shell ready', async () => (await c.call('session.get', { id: idle.session.remote_session_id })).session.shell_ready, 10_000);
    const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore' });
    await pollUntil('bare node up', () => bare.pid !== undefined && rssMb(bare.pid) > 20, 5000);
    await new Promise((r) => setTimeout(r, 1500)); // let both settle to idle (measurement, not synchronisation)
    const g = rssMb(idle.session.guardian_pid!);
    const b = rssMb(bare.pid!);
    bare.kill();
    report({ suite: S, measure: 'guardian idle RSS', value: `${g.toFixed(1)} MB`, baseline: `bare idle node ${b.toFixed(1)} MB`, ratio: ratio(g, b), note: 'goal ≤ 1.3×' });

    // PTY flood.
    const bytes = 200 * 1024 * 1024;
    const raw = await sample(3, () => timeShell(`yes | head -c ${bytes} > /dev/null`), 1);
    // The same pipeline on a PTY with no holdfast layer: script(1) copying the PTY to /dev/null.
    const ptyFloor = await sample(1, () => timeShell(`script -qfec "yes | head -c ${bytes}" /dev/null > /dev/null`), 0);
    const flood = await c.call('session.open', { principal: 'flood', workspace: 'ws' });
    const fid = flood.session.remote_session_id;
    const echoMs: number[] = [];
    let flooding = true;
    const t0 = performance.now();
    const floodDone = c.call('session.exec', { id: fid, command: `yes | head -c ${bytes}`, wait_ms: 120_000 }, { deadlineMs: 180_000 }).then((r) => {
      flooding = false;
      if (!r.ok || r.cmd?.state !== 'exited') throw new Error('flood did not finish');
      return performance.now() - t0;
    });
    while (flooding) {
      const e0 = performance.now();
      await c.call('session.exec', { id, command: 'echo ok', wait_ms: 10_000 });
      echoMs.push(performance.now() - e0);
    }
    const floodMs = await floodDone;
    const mbps = (ms: number): string => `${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s`;
    report({ suite: S, measure: 'PTY flood yes|head -c 200M', value: mbps(floodMs), baseline: `pipeline → /dev/null ${mbps(median(raw))}`, ratio: ratio(median(raw), floodMs), note: 'throughput ratio, goal ≥ 0.5×' });
    report({ suite: S, measure: 'PTY flood vs a bare PTY consumer', value: mbps(floodMs), baseline: `script(1) on a PTY ${mbps(median(ptyFloor))}`, ratio: ratio(median(ptyFloor), floodMs), note: 'the kernel PTY is the limit' });
    report({ suite: S, measure: "other session's echo during the flood", value: `p50 ${fmtMs(median(echoMs))} p99 ${fmtMs(percentile(echoMs, 99))}`, baseline: 'goal p99 ≤ 50 ms', ratio: '', note: `${echoMs.length} samples` });
  } finally {
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
