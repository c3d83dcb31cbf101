import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { TestHome } from '@holdfast/test/harness';
import { openSession, stdioClient } from '@holdfast/test/harness/mcp';
import { fmtMs, median, percentile, ratio, report, sample } from '../stats.js';

const S = 'extensions';
const require = createRequire(import.meta.url);
const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const COLD_RUNS = 5;

/**
 * Issue 13 measures: `mcp_tool call` of server-everything's `echo` through holdfast (stdio adapter
 * → daemon → guardian → upstream, with `tools/list`, argument validation and audit on every call)
 * against the same call made directly with an SDK v2 client over stdio to the same server — warm
 * (connection up) and cold (first call of a session: spawn + initialize + call; the baseline
 * spawns, initializes and calls).
 */
export async function extensionsSuite(): Promise<void> {
  const h = new TestHome({ mcp_servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } } });
  const closers: (() => Promise<unknown>)[] = [];
  try {
    await h.startDaemon();
    const { client: ours } = await stdioClient(h, ['--session-affinity', 'thread']);
    closers.push(() => ours.close());
    const echo = (rs: string) => ours.callTool({ name: 'mcp_tool', arguments: { action: 'call', remote_session_id: rs, server: 'everything', tool: 'echo', arguments: { message: 'bench' } } });

    const direct = async (): Promise<Client> => {
      const c = new Client({ name: 'holdfast-bench', version: '1.0.0' });
      await c.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
      return c;
    };

    const coldOurs: number[] = [];
    const coldBase: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const { id } = await openSession(ours, { workspace: 'ws' });
      let t0 = performance.now();
      const r = (await echo(id)) as { isError?: boolean; content: unknown };
      coldOurs.push(performance.now() - t0);
      if (r.isError) throw new Error(`mcp_tool call failed: ${JSON.stringify(r.content)}`);
      await ours.callTool({ name: 'session', arguments: { action: 'close', remote_session_id: id } });
      t0 = performance.now();
      const c = await direct();
      await c.callTool({ name: 'echo', arguments: { message: 'bench' } });
      coldBase.push(performance.now() - t0);
      await c.close();
    }
    report({ suite: S, measure: 'mcp_tool call echo, cold (spawn + initialize)', value: `p50 ${fmtMs(median(coldOurs))} (${COLD_RUNS} runs)`, baseline: `SDK client spawn+call p50 ${fmtMs(median(coldBase))}`, ratio: ratio(median(coldOurs), median(coldBase)) });

    const { id } = await openSession(ours, { workspace: 'ws' });
    const base = await direct();
    closers.push(() => base.close());
    const warmOurs = await sample(300, () => echo(id));
    const warmBase = await sample(300, () => base.callTool({ name: 'echo', arguments: { message: 'bench' } }));
    report({ suite: S, measure: 'mcp_tool call echo, warm', value: `p50 ${fmtMs(median(warmOurs))} p99 ${fmtMs(percentile(warmOurs, 99))}`, baseline: `SDK client → server p50 ${fmtMs(median(warmBase))}`, ratio: ratio(median(warmOurs), median(warmBase)), note: 'holdfast adds tools/list + validation per call' });
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
