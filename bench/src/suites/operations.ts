import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestHome } from '@holdfast/test/harness';
import { callTool, openSession, stdioClient } from '@holdfast/test/harness/mcp';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';

const S = 'ops';
const FILES = 20;
/** Bytes a command prints for the throughput measures (task pipes; the PTY gets a quarter). */
const TASK_BYTES = 64 * 1024 * 1024;
const PTY_BYTES = 16 * 1024 * 1024;

/**
 * Issue 12 measures, over stdio in one run: a batch of 20 independent `read`s against 20
 * sequential `read` calls; `environment_read(view="current")` cold (a fresh reading, as
 * `environment` takes) against cached; and output throughput (a background task's pipes and the
 * PTY) of a session holding one secret against one holding none — the cost of redaction.
 */
export async function operationsSuite(): Promise<void> {
  const h = new TestHome();
  const closers: (() => Promise<unknown>)[] = [];
  try {
    for (let i = 0; i < FILES; i++) writeFileSync(join(h.workspace, `f${i}.txt`), `file ${i}\n`.repeat(400));
    await h.startDaemon();
    const { client } = await stdioClient(h);
    closers.push(() => client.close());
    const { id } = await openSession(client, { workspace: 'ws' });
    const ok = async (tool: string, args: Record<string, unknown>, rs = id): Promise<Record<string, unknown>> => {
      const r = await callTool(client, tool, { remote_session_id: rs, ...args });
      if (r.isError) throw new Error(r.text);
      return r.env.data!;
    };

    const steps = Array.from({ length: FILES }, (_, i) => ({ id: `r${i}`, tool: 'read', arguments: { path: `f${i}.txt`, force: true } }));
    const batch = (): Promise<unknown> => ok('operation_batch', { steps, yield_time_ms: 30_000 });
    const sequential = async (): Promise<void> => {
      for (let i = 0; i < FILES; i++) await ok('read', { path: `f${i}.txt`, force: true });
    };
    // Interleaved, so load on the machine weighs on both alike.
    const batchMs: number[] = [];
    const seqMs: number[] = [];
    for (let i = 0; i < 45; i++) {
      for (const [fn, into] of [[batch, batchMs], [sequential, seqMs]] as const) {
        const t0 = performance.now();
        await fn();
        if (i >= 5) into.push(performance.now() - t0);
      }
    }
    report({ suite: S, measure: `operation_batch of ${FILES} reads (stdio)`, value: `p50 ${fmtMs(median(batchMs))} p99 ${fmtMs(percentile(batchMs, 99))}`, baseline: `${FILES} sequential reads ${fmtMs(median(seqMs))}`, ratio: ratio(median(batchMs), median(seqMs)) });

    const coldMs = await sample(8, () => ok('environment', {}), 1);
    await ok('environment_read', { view: 'current' });
    const cachedMs = await sample(200, () => ok('environment_read', { view: 'current' }));
    report({ suite: S, measure: 'environment_read(current) cold (fresh reading)', value: `p50 ${fmtMs(median(coldMs))} p99 ${fmtMs(percentile(coldMs, 99))}`, baseline: `cached p50 ${fmtMs(median(cachedMs))} p99 ${fmtMs(percentile(cachedMs, 99))}`, ratio: ratio(median(coldMs), median(cachedMs)) });

    // Redaction cost: the same output in a session holding one secret and in one holding none.
    const plain = id;
    const c = h.client();
    // A second session of the stdio principal ("owner"), opened as its own (thread affinity).
    const secret = (await c.call('session.open', { principal: 'owner', workspace: 'ws', affinity: 'thread' })).session.remote_session_id;
    await c.call('secret.provide', { id: secret, name: 'BENCH_TOKEN', value: 'hf-bench-3f9a1c77e2' }, { retry: 'never', deadlineMs: 15_000 });
    const line = 'a log line with words, numbers 0123456789 and a path /usr/lib/x86_64-linux-gnu/';
    const once = async (rs: string, background: boolean, bytes: number): Promise<number> => {
      const t0 = performance.now();
      const r = await ok('execute', { command: `yes '${line}' | head -c ${bytes}; echo`, background, yield_time_ms: 60_000 }, rs);
      let task = r;
      while (task.state === 'running') task = await ok('execute', { action: 'attach', execution_task_id: r.execution_task_id, yield_time_ms: 60_000 }, rs);
      return performance.now() - t0;
    };
    // Interleaved, so load on the machine weighs on both alike.
    const throughput = async (background: boolean, bytes: number): Promise<{ plain: number[]; secret: number[] }> => {
      await once(plain, background, bytes);
      await once(secret, background, bytes);
      const out = { plain: [] as number[], secret: [] as number[] };
      for (let i = 0; i < 9; i++) {
        out.plain.push(await once(plain, background, bytes));
        out.secret.push(await once(secret, background, bytes));
      }
      return out;
    };
    const mbps = (ms: number[], bytes: number): string => `${((bytes / (1024 * 1024)) / (median(ms) / 1000)).toFixed(0)} MiB/s`;
    const task = await throughput(true, TASK_BYTES);
    report({ suite: S, measure: 'task output, 64 MiB, one secret held', value: `${mbps(task.secret, TASK_BYTES)} (${fmtMs(median(task.secret))})`, baseline: `no secret ${mbps(task.plain, TASK_BYTES)}`, ratio: ratio(median(task.secret), median(task.plain)), note: 'time ratio' });
    const pty = await throughput(false, PTY_BYTES);
    report({ suite: S, measure: 'terminal output, 16 MiB, one secret held', value: `${mbps(pty.secret, PTY_BYTES)} (${fmtMs(median(pty.secret))})`, baseline: `no secret ${mbps(pty.plain, PTY_BYTES)}`, ratio: ratio(median(pty.secret), median(pty.plain)), note: 'time ratio' });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
