import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { pollUntil, TestHome } from '@holdfast/test/harness';
import { callTool, httpClient, openSession, ownerToken, startAdapter, type EraMode } from '@holdfast/test/harness/mcp';
import { fmtMs, median, percentile, rate, ratio, report, sample } from '../stats.js';

const S = 'mcp';
const BARE = join(fileURLToPath(new URL('..', import.meta.url)), 'baselines', 'bare-sdk-server.js');

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Starts the bare SDK v2 baseline server; resolves with its URL and process. */
export function startBare(token: string, catalog: 'minimal' | 'holdfast' = 'minimal'): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BARE], { env: { ...process.env, BENCH_TOKEN: token, BENCH_CATALOG: catalog }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
}

/** Requests/s of `tools/list` with `clients` concurrent clients for `ms`. */
async function listThroughput(clients: Client[], ms: number): Promise<number> {
  return (await rate(clients.length, ms, (w) => clients[w]!.listTools())).perSecond;
}

/**
 * Issue 3 measures: `execute` of `true` over HTTP (both eras) against the bare SDK v2 server
 * running `true` with child_process; `tools/list` requests/s at 8 concurrent clients against the
 * same server; idle RSS of the adapter and the daemon against the bare server.
 */
export async function mcpSuite(): Promise<void> {
  const h = new TestHome();
  let bare: { url: string; child: ChildProcess } | null = null;
  const clients: Client[] = [];
  try {
    await h.startDaemon();
    // The benchmark measures per-call cost, not the rate limiter: lift the per-IP limit.
    const adapter = await startAdapter(h, ['--requests-per-minute', '100000000', '--max-concurrency', '64']);
    const token = ownerToken(h);
    bare = await startBare(token);

    await pollUntil('adapter and bare server settle', () => true, 100);
    const bareRss = rssMb(bare.child.pid!);
    const adapterRss = rssMb(adapter.pid);
    const daemonRss = rssMb(h.daemonPid()!);
    report({ suite: S, measure: 'idle RSS: adapter (HTTP)', value: `${adapterRss.toFixed(1)} MB`, baseline: `bare SDK HTTP server ${bareRss.toFixed(1)} MB`, ratio: ratio(adapterRss, bareRss), note: 'goal ≤ 1.0×' });
    report({ suite: S, measure: 'idle RSS: daemon', value: `${daemonRss.toFixed(1)} MB`, baseline: `bare SDK HTTP server ${bareRss.toFixed(1)} MB`, ratio: ratio(daemonRss, bareRss), note: 'goal ≤ 1.0×' });

    const eras: [string, EraMode][] = [
      ['modern (2026-07-28)', { pin: '2026-07-28' }],
      ['legacy (2025-11-25)', 'legacy'],
    ];
    for (const [label, mode] of eras) {
      const hc = await httpClient(adapter.url, token, mode);
      const bc = await httpClient(bare.url, token, mode);
      clients.push(hc, bc);
      const { id } = await openSession(hc, { workspace: 'ws' });
      const ours = await sample(300, async () => {
        const r = await callTool(hc, 'execute', { remote_session_id: id, command: 'true' });
        if (r.isError || r.env.data?.exit_code !== 0) throw new Error(`execute true failed: ${r.text}`);
      });
      const base = await sample(300, () => bc.callTool({ name: 'run_true', arguments: {} }));
      report({
        suite: S,
        measure: `execute \`true\` over HTTP, ${label}`,
        value: `p50 ${fmtMs(median(ours))} p99 ${fmtMs(percentile(ours, 99))}`,
        baseline: `bare SDK+execFile p50 ${fmtMs(median(base))} p99 ${fmtMs(percentile(base, 99))}`,
        ratio: ratio(median(ours), median(base)),
        note: 'goal ≤ 1.3×',
      });
    }

    // A second baseline lists holdfast's own catalogue: the same bytes per answer, so the ratio
    // is the cost of our layers rather than of a 40× larger list.
    const same = await startBare(token, 'holdfast');
    try {
      for (const [label, mode] of eras) {
        const ours = await Promise.all(Array.from({ length: 8 }, () => httpClient(adapter.url, token, mode)));
        const base = await Promise.all(Array.from({ length: 8 }, () => httpClient(bare!.url, token, mode)));
        const baseSame = await Promise.all(Array.from({ length: 8 }, () => httpClient(same.url, token, mode)));
        clients.push(...ours, ...base, ...baseSame);
        for (const group of [ours, base, baseSame]) await listThroughput(group, 500);
        const a = await listThroughput(ours, 3000);
        const b = await listThroughput(base, 3000);
        const c = await listThroughput(baseSame, 3000);
        const size = JSON.stringify(await ours[0]!.listTools()).length;
        report({ suite: S, measure: `tools/list × 8 clients, ${label}`, value: `${a.toFixed(0)} req/s`, baseline: `bare SDK (2 tools) ${b.toFixed(0)} req/s`, ratio: ratio(a, b), note: `goal ≥ 0.8×; ours ${(size / 1024).toFixed(1)} KB per answer` });
        report({ suite: S, measure: `tools/list × 8 clients, ${label}, same catalogue`, value: `${a.toFixed(0)} req/s`, baseline: `bare SDK (holdfast's tools) ${c.toFixed(0)} req/s`, ratio: ratio(a, c), note: 'goal ≥ 0.8×' });
      }
    } finally {
      same.child.kill('SIGTERM');
    }
    await adapter.stop();
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    bare?.child.kill('SIGTERM');
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
