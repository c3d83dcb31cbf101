#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TestHome } from '@holdfast/test/harness';
import { callTool, httpClient, openSession, ownerToken, startAdapter, stdioClient } from '@holdfast/test/harness/mcp';
import { callFixtures, ourEdit, ourRead } from './suites/calls.js';
import { rate } from './stats.js';

/**
 * CPU profiles of the adapter and the daemon under one bench workload, summarised as text into
 * `bench/profiles/<tag>-<workload>-<process>.txt` (bench/profiles/summarize.mjs; raw profiles are
 * not kept).
 *
 * usage: node bench/dist/profile.js <tag> [read-1kb|read-1mb|batch|edit|list-2025|list-2026] [n]
 * The processes are profiled by `--import cpu-prof-hook.js` in NODE_OPTIONS (Node 20 refuses
 * `--cpu-prof` there); the samples cover start-up too, which the per-call summary lists apart.
 */
const here = dirname(fileURLToPath(import.meta.url));
const [tag = 'now', workload = 'read-1kb', nArg] = process.argv.slice(2);
const n = Number(nArg ?? 3000);
const out = join(here, '..', 'profiles');
const raw = mkdtempSync('/tmp/hfb-prof-');
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${pathToFileURL(join(here, 'cpu-prof-hook.js')).href}`.trim();
process.env.HOLDFAST_CPU_PROF_DIR = raw;
process.env.HOLDFAST_CPU_PROF_MATCH = 'daemon/(dist|bin)/|adapter/(dist|bin)/';

async function main(): Promise<void> {
  const h = new TestHome();
  let what = `${n} calls`;
  try {
    callFixtures(h.workspace);
    await h.startDaemon();
    if (workload.startsWith('list-')) {
      const adapter = await startAdapter(h, ['--requests-per-minute', '100000000', '--max-concurrency', '64']);
      const token = ownerToken(h);
      const clients = await Promise.all(Array.from({ length: 8 }, () => httpClient(adapter.url, token, workload === 'list-2025' ? 'legacy' : { pin: '2026-07-28' })));
      const r = await rate(8, 5000, (w) => clients[w]!.listTools(), 500);
      what = `5 s at 8 clients, ${r.perSecond.toFixed(0)} req/s`;
      process.stdout.write(`${workload}: ${what}\n`);
      for (const c of clients) await c.close();
      await adapter.stop();
    } else {
      const { client } = await stdioClient(h);
      const { id } = await openSession(client, { workspace: 'ws' });
      const fn =
        workload === 'read-1mb' ? ourRead(client, id, 'one-mb.ts')
        : workload === 'edit' ? ourEdit(client, id)
        : workload === 'batch' ? async () => void (await callTool(client, 'read', { remote_session_id: id, view: 'context', items: Array.from({ length: 100 }, (_, i) => ({ path: `batch/f${i}.ts` })), max_total_bytes: 1_000_000 }))
        : ourRead(client, id, 'one-kb.ts');
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await fn();
      what = `${n} calls, ${((performance.now() - t0) / n).toFixed(3)} ms each`;
      process.stdout.write(`${workload}: ${what}\n`);
      await client.close();
    }
  } finally {
    await h.cleanup();
  }
  for (const f of readdirSync(raw)) {
    const proc = f.includes('daemon') ? 'daemon' : 'adapter';
    const text = execFileSync(process.execPath, [join(out, 'summarize.mjs'), join(raw, f), '45'], { encoding: 'utf8' });
    const dest = join(out, `${tag}-${workload}-${proc}.txt`);
    writeFileSync(dest, `# ${workload}, ${what} (bench/src/profile.ts; the machine's load varies: compare shares, not ms)\n${text}`);
    process.stdout.write(`wrote ${dest}\n`);
  }
  rmSync(raw, { recursive: true, force: true });
}

void main();
