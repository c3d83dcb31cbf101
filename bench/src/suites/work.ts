import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ControlEvents, type EventsBatch } from '@holdfast/shared/control';
import { CLI_MAIN, pollUntil, TestHome } from '@holdfast/test/harness';
import { callTool, openSession, stdioClient } from '@holdfast/test/harness/mcp';
import { DaemonClient } from '@holdfast/adapter/daemon-client';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';

const S = 'work';
/** Events in the store when the stream's rate is measured. */
const STREAM_EVENTS = 5000;

/**
 * Issue 11 measures, over stdio in one run: `plan(read)` of a 50-task plan and `artifact(read)` of
 * a 1 MB page against `read` of a 1 MB file; the `holdfast observe` stream's latency from a tool
 * call's end to its event line (p50/p99, against the call itself), and the events per second the
 * stream sustains (against the rate tool calls produce events).
 */
export async function workSuite(): Promise<void> {
  const h = new TestHome();
  const closers: (() => Promise<unknown>)[] = [];
  try {
    const line = 'const value = computeSomething(alpha, beta, gamma); // filler text\n';
    writeFileSync(join(h.workspace, 'one-mb.ts'), line.repeat(Math.ceil((1024 * 1024) / line.length)).slice(0, 1024 * 1024));
    await h.startDaemon();
    const { client } = await stdioClient(h);
    closers.push(() => client.close());
    const { id } = await openSession(client, { workspace: 'ws' });
    const ok = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const r = await callTool(client, tool, { remote_session_id: id, ...args });
      if (r.isError) throw new Error(r.text);
      return r.env.data!;
    };

    const readMs = await sample(60, () => ok('read', { path: 'one-mb.ts', force: true }));
    const tasks = Array.from({ length: 50 }, (_, i) => ({ local_id: `t${i}`, title: `Task ${i}: do the part of the work numbered ${i}`, acceptance: 'tests pass', depends_on: i > 0 ? [`t${i - 1}`] : [] }));
    const plan = await ok('plan', { action: 'create', title: 'Fifty steps', goal: 'bench', tasks });
    const planMs = await sample(200, () => ok('plan', { action: 'read', plan_id: plan.plan_id }));
    report({ suite: S, measure: 'plan(read), 50 tasks (stdio)', value: `p50 ${fmtMs(median(planMs))} p99 ${fmtMs(percentile(planMs, 99))}`, baseline: `read 1 MB ${fmtMs(median(readMs))}`, ratio: ratio(median(planMs), median(readMs)) });

    const art = await ok('artifact', { action: 'register', path: 'one-mb.ts', title: 'one MB', kind: 'data' });
    const artMs = await sample(60, () => ok('artifact', { action: 'read', artifact_id: art.artifact_id, limit: 1024 * 1024 }));
    report({ suite: S, measure: 'artifact(read), 1 MB page (stdio)', value: `p50 ${fmtMs(median(artMs))} p99 ${fmtMs(percentile(artMs, 99))}`, baseline: `read 1 MB ${fmtMs(median(readMs))}`, ratio: ratio(median(artMs), median(readMs)) });

    // Live latency: a call's end to its line in `holdfast observe --format json` (a real CLI process).
    const arrived = new Map<string, number>();
    const obs = spawn(process.execPath, [CLI_MAIN, 'observe', 'ws', '--format', 'json', '--history', '1', '--tool', 'execute'], { env: h.env(), stdio: ['ignore', 'pipe', 'ignore'] });
    closers.push(async () => obs.kill('SIGKILL'));
    let buf = '';
    obs.stdout.on('data', (d: Buffer) => {
      const now = performance.now();
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const ev = JSON.parse(buf.slice(0, nl)) as { data: { target?: string } };
        buf = buf.slice(nl + 1);
        if (ev.data.target) arrived.set(ev.data.target, now);
      }
    });
    await ok('execute', { command: 'echo warm' });
    await pollUntil('the observer to follow', () => arrived.has('echo warm'), 15_000);
    const lat: number[] = [];
    const callMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t0 = performance.now();
      await ok('execute', { command: `echo lat-${i}` });
      const end = performance.now();
      callMs.push(end - t0);
      await pollUntil('the event line', () => arrived.has(`echo lat-${i}`), 10_000, 1);
      lat.push(arrived.get(`echo lat-${i}`)! - end);
    }
    report({ suite: S, measure: 'observe: call end → event line', value: `p50 ${fmtMs(median(lat))} p99 ${fmtMs(percentile(lat, 99))}`, baseline: `the call itself p50 ${fmtMs(median(callMs))}`, ratio: ratio(median(lat), median(callMs)), note: 'negative: the line came before the result' });

    // Sustained rate: fill the store with tool-call events from 8 concurrent callers, then follow it from the start.
    const producers = 8;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: producers }, async (_, p) => {
      for (let i = p; i < STREAM_EVENTS; i += producers) await callTool(client, 'read', { remote_session_id: id, path: `missing-${i}.txt` });
    }));
    const produced = STREAM_EVENTS / ((performance.now() - t0) / 1000);
    let got = 0;
    let done: () => void = () => undefined;
    const finished = new Promise<void>((r) => (done = r));
    const follower = new DaemonClient({
      role: 'test',
      home: h.home,
      autoStart: false,
      onEvent: (ev, d) => {
        if (ev !== ControlEvents.events) return;
        got += (d as EventsBatch).events.length;
        if (got >= STREAM_EVENTS) done();
      },
    });
    closers.push(async () => follower.close());
    const f0 = performance.now();
    await follower.call('events.follow', { stream: 'bench', workspace: 'ws', after_seq: 0, tool: 'read' });
    await finished;
    const rate = got / ((performance.now() - f0) / 1000);
    report({ suite: S, measure: `observe stream, ${STREAM_EVENTS} stored events`, value: `${Math.round(rate)} events/s`, baseline: `tool calls produce ${Math.round(produced)}/s`, ratio: ratio(rate, produced) });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
