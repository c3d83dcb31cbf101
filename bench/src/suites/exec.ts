import type { Client } from '@modelcontextprotocol/client';
import { TestHome } from '@holdfast/test/harness';
import { callTool, httpClient, openSession, ownerToken, startAdapter, stdioClient } from '@holdfast/test/harness/mcp';
import { startDesktopCommander, type Peer } from '../peers.js';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';
import { startBare } from './mcp.js';

const S = 'exec';

/**
 * Issue 5 measures: `execute` of `true` over MCP against the bare-SDK floor and against
 * DesktopCommander's process tool running the same command (stdio both), and 32 sessions × 20
 * commands at once (p50/p99 and errors).
 */
export async function execSuite(): Promise<void> {
  const h = new TestHome({ sessions: { max_live: 40 } });
  const closers: (() => Promise<unknown>)[] = [];
  try {
    await h.startDaemon();
    const { client: ours } = await stdioClient(h);
    closers.push(() => ours.close());
    const dc: Peer = await startDesktopCommander(h.workspace);
    closers.push(() => dc.close());
    const { id } = await openSession(ours, { workspace: 'ws' });
    const oursMs = await sample(200, async () => {
      const r = await callTool(ours, 'execute', { remote_session_id: id, command: 'true' });
      if (r.isError) throw new Error(r.text);
    });
    const dcMs = await sample(100, () => dc.client.callTool({ name: 'start_process', arguments: { command: 'true', timeout_ms: 10_000 } }));
    report({ suite: S, measure: 'execute `true` over stdio', value: `p50 ${fmtMs(median(oursMs))} p99 ${fmtMs(percentile(oursMs, 99))}`, baseline: `DesktopCommander start_process p50 ${fmtMs(median(dcMs))}`, ratio: ratio(median(oursMs), median(dcMs)), note: 'goal ≤ 0.3×' });

    // HTTP: against the bare SDK v2 server running `true` with child_process.
    const adapter = await startAdapter(h, ['--requests-per-minute', '100000000', '--max-concurrency', '64', '--session-affinity', 'thread']);
    closers.push(() => adapter.stop());
    const token = ownerToken(h);
    const bare = await startBare(token);
    closers.push(async () => bare.child.kill('SIGTERM'));
    const hc = await httpClient(adapter.url, token, { pin: '2026-07-28' });
    const bc = await httpClient(bare.url, token, { pin: '2026-07-28' });
    closers.push(() => hc.close(), () => bc.close());
    const { id: hid } = await openSession(hc, { workspace: 'ws' });
    const httpMs = await sample(200, () => callTool(hc, 'execute', { remote_session_id: hid, command: 'true' }));
    const bareMs = await sample(200, () => bc.callTool({ name: 'run_true', arguments: {} }));
    report({ suite: S, measure: 'execute `true` over HTTP (2026-07-28)', value: `p50 ${fmtMs(median(httpMs))} p99 ${fmtMs(percentile(httpMs, 99))}`, baseline: `bare SDK+execFile p50 ${fmtMs(median(bareMs))}`, ratio: ratio(median(httpMs), median(bareMs)), note: 'goal ≤ 1.3×' });

    // 32 sessions × 20 commands at once (thread affinity: every open is its own session).
    const clients: Client[] = await Promise.all(Array.from({ length: 32 }, () => httpClient(adapter.url, token, { pin: '2026-07-28' })));
    closers.push(...clients.map((c) => () => c.close()));
    const sessions = await Promise.all(clients.map((c) => openSession(c, { workspace: 'ws' })));
    // Each shell's first prompt is part of the cold open (runtime suite), not of this measure.
    await Promise.all(clients.map((c, i) => callTool(c, 'execute', { remote_session_id: sessions[i]!.id, command: 'true' })));
    const lat: number[] = [];
    let errors = 0;
    const t0 = performance.now();
    await Promise.all(
      clients.map(async (c, i) => {
        for (let k = 0; k < 20; k++) {
          const s = performance.now();
          const r = await callTool(c, 'execute', { remote_session_id: sessions[i]!.id, command: `echo s${i}-${k}` }).catch(() => null);
          lat.push(performance.now() - s);
          if (!r || r.isError || String(r.env.data?.output ?? '').trim() !== `s${i}-${k}`) errors++;
        }
      }),
    );
    const wall = performance.now() - t0;
    report({
      suite: S,
      measure: '32 sessions × 20 commands at once',
      value: `p50 ${fmtMs(median(lat))} p99 ${fmtMs(percentile(lat, 99))}`,
      baseline: `${errors} errors, ${(640 / (wall / 1000)).toFixed(0)} cmd/s`,
      ratio: `p99/p50 ${(percentile(lat, 99) / median(lat)).toFixed(1)}`,
      note: 'goal 0 errors, p99 ≤ 10× p50',
    });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
