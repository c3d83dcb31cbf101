import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/client';
import { pollUntil, TestHome } from '@holdfast/test/harness';
import { callTool, httpClient, openSession, ownerToken, startAdapter, stdioClient, type EraMode } from '@holdfast/test/harness/mcp';
import { startServerFilesystem, type Peer } from '../peers.js';
import { median, p50p99, rate, ratio, report, sample } from '../stats.js';
import { startBare } from './mcp.js';

const S = 'calls';

/** The fixtures of issue 10's rows: a 1 KB and a 1 MB file, 100 × 1 KB files, a 100-line CRLF file. */
export function callFixtures(ws: string): void {
  const line = 'const value = computeSomething(alpha, beta, gamma); // filler text\n';
  writeFileSync(join(ws, 'one-kb.ts'), line.repeat(Math.ceil(1024 / line.length)).slice(0, 1024));
  writeFileSync(join(ws, 'one-mb.ts'), line.repeat(Math.ceil((1024 * 1024) / line.length)).slice(0, 1024 * 1024));
  mkdirSync(join(ws, 'batch'), { recursive: true });
  for (let i = 0; i < 100; i++) writeFileSync(join(ws, 'batch', `f${i}.ts`), `// file ${i}\n${line.repeat(15)}`.slice(0, 1024));
  writeFileSync(join(ws, 'hundred.ts'), Array.from({ length: 100 }, (_, i) => `export const v${i} = ${i};\r\n`).join(''));
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** A `read` of `path` (forced: the bench re-reads the same file) that throws on an error result. */
export function ourRead(c: Client, id: string, path: string) {
  return async (): Promise<void> => {
    const r = await callTool(c, 'read', { remote_session_id: id, path, force: true });
    if (r.isError) throw new Error(r.text);
  };
}

/** An exact replacement edit flipping one line of `hundred.ts` back and forth. */
export function ourEdit(c: Client, id: string) {
  let sha = '';
  let flip = false;
  return async (): Promise<void> => {
    if (!sha) sha = ((await callTool(c, 'read', { remote_session_id: id, path: 'hundred.ts', force: true })).env.data as { sha256: string }).sha256;
    const [a, b] = flip ? ['= 4200;', '= 42;'] : ['= 42;', '= 4200;'];
    flip = !flip;
    const r = await callTool(c, 'edit', { remote_session_id: id, edits: [{ operation: 'update', path: 'hundred.ts', base_sha256: sha, replacements: [{ match: a, replacement: b }] }] });
    if (r.isError) throw new Error(r.text);
    sha = (r.env.data as { files: { readback: { sha256: string } }[] }).files[0]!.readback.sha256;
  };
}

const BATCH = Array.from({ length: 100 }, (_, i) => `batch/f${i}.ts`);

/**
 * Issue 10's table in one run: the per-call cost of holdfast's layers on the calls agents make
 * most — read 1 KB, read 1 MB, a 100-file batch, an exact edit (with fsync) — over stdio against
 * `@modelcontextprotocol/server-filesystem`, the same reads over HTTP in both protocol eras
 * against a bare SDK v2 server reading with `fs`, `tools/list` at 8 clients against a bare SDK
 * server listing holdfast's own catalogue, and the daemon's idle RSS. Every row prints p50 and p99
 * of both sides; the ratio is of the medians (p50), the goal is the issue's.
 */
export async function callsSuite(): Promise<void> {
  // The 1 MB rows read the whole file in one window, as the peers do (the default window is
  // 256 KiB since the read-paging fix; one window of 1 MiB is what the rows compare).
  const h = new TestHome({ limits: { read_window_bytes: 1024 * 1024 } });
  const closers: (() => Promise<unknown>)[] = [];
  const kids: ChildProcess[] = [];
  try {
    callFixtures(h.workspace);
    await h.startDaemon();
    const bareIdle = await startBare('x');
    kids.push(bareIdle.child);
    await pollUntil('bare server settles', () => true, 100);
    const daemonRss = rssMb(h.daemonPid()!);
    const bareRss = rssMb(bareIdle.child.pid!);
    report({ suite: S, measure: 'daemon idle RSS', value: `${daemonRss.toFixed(1)} MB`, baseline: `bare SDK HTTP server ${bareRss.toFixed(1)} MB`, ratio: ratio(daemonRss, bareRss), note: 'goal ≤ 1.0×' });

    const { client: ours } = await stdioClient(h);
    closers.push(() => ours.close());
    const sf: Peer = await startServerFilesystem(h.workspace);
    closers.push(() => sf.close());
    const { id } = await openSession(ours, { workspace: 'ws' });
    const abs = (p: string): string => join(h.workspace, p);

    const row = (measure: string, o: number[], baseName: string, b: number[], goal: string): void =>
      report({ suite: S, measure, value: p50p99(o), baseline: `${baseName} ${p50p99(b)}`, ratio: ratio(median(o), median(b)), note: `goal ${goal}` });

    // Interleaved halves: the machine's load drifts, both sides see the same drift.
    const pair = async (n: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> => {
      const x: number[] = [];
      const y: number[] = [];
      for (let i = 0; i < 2; i++) {
        x.push(...(await sample(n / 2, a)));
        y.push(...(await sample(n / 2, b)));
      }
      return [x, y];
    };

    for (const [label, path, n, goal] of [['read 1 KB', 'one-kb.ts', 400, '≤ 1.0×'], ['read 1 MB', 'one-mb.ts', 60, '≤ 0.6×']] as const) {
      const [o, s] = await pair(n, ourRead(ours, id, path), () => sf.client.callTool({ name: 'read_text_file', arguments: { path: abs(path) } }));
      row(`${label} (stdio)`, o, 'server-filesystem', s, goal);
    }
    const [oB, sB] = await pair(
      40,
      async () => {
        const r = await callTool(ours, 'read', { remote_session_id: id, view: 'context', items: BATCH.map((path) => ({ path })), max_total_bytes: 1_000_000 });
        if (r.isError) throw new Error(r.text);
      },
      () => sf.client.callTool({ name: 'read_multiple_files', arguments: { paths: BATCH.map(abs) } }),
    );
    row('100-file batch (stdio, one call)', oB, 'server-filesystem', sB, '≤ 1.0×');
    writeFileSync(abs('hundred-sf.ts'), readFileSync(abs('hundred.ts')));
    let flip = false;
    const [oE, sE] = await pair(100, ourEdit(ours, id), async () => {
      const [a, b] = flip ? ['= 4200;', '= 42;'] : ['= 42;', '= 4200;'];
      flip = !flip;
      await sf.client.callTool({ name: 'edit_file', arguments: { path: abs('hundred-sf.ts'), edits: [{ oldText: a, newText: b }] } });
    });
    row('exact edit incl. fsync (stdio)', oE, 'server-filesystem (no fsync)', sE, '≤ 2.0×');

    // HTTP, both eras: holdfast against the bare SDK server reading with fs.
    const adapter = await startAdapter(h, ['--requests-per-minute', '100000000', '--max-concurrency', '64']);
    closers.push(() => adapter.stop());
    const token = ownerToken(h);
    const bare = await startBare(token, 'holdfast');
    kids.push(bare.child);
    const eras: [string, EraMode][] = [
      ['2025-11-25', 'legacy'],
      ['2026-07-28', { pin: '2026-07-28' }],
    ];
    for (const [era, mode] of eras) {
      const hc = await httpClient(adapter.url, token, mode);
      const bc = await httpClient(bare.url, token, mode);
      closers.push(() => hc.close(), () => bc.close());
      const { id: hid } = await openSession(hc, { workspace: 'ws' });
      for (const [label, path, n] of [['read 1 KB', 'one-kb.ts', 300], ['read 1 MB', 'one-mb.ts', 40]] as const) {
        const [o, b] = await pair(n, ourRead(hc, hid, path), () => bc.callTool({ name: 'read_file', arguments: { path: abs(path) } }));
        row(`${label} (HTTP ${era})`, o, 'bare SDK read_file', b, '≤ 1.2×');
      }
      const [oHE, ] = [await sample(60, ourEdit(hc, hid))];
      report({ suite: S, measure: `exact edit incl. fsync (HTTP ${era})`, value: p50p99(oHE), baseline: '—', ratio: '—' });
      const ourList = await Promise.all(Array.from({ length: 8 }, () => httpClient(adapter.url, token, mode)));
      const bareList = await Promise.all(Array.from({ length: 8 }, () => httpClient(bare.url, token, mode)));
      closers.push(...ourList.map((c) => () => c.close()), ...bareList.map((c) => () => c.close()));
      const a = await rate(8, 3000, (w) => ourList[w]!.listTools(), 500);
      const b = await rate(8, 3000, (w) => bareList[w]!.listTools(), 500);
      report({ suite: S, measure: `tools/list × 8 clients (HTTP ${era})`, value: `${a.perSecond.toFixed(0)} req/s ${p50p99(a.samples)}`, baseline: `bare SDK, same catalogue ${b.perSecond.toFixed(0)} req/s ${p50p99(b.samples)}`, ratio: ratio(a.perSecond, b.perSecond), note: 'goal ≥ 0.8×' });
    }
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    for (const k of kids) k.kill('SIGTERM');
    await h.cleanup().catch((err: Error) => process.stderr.write(`cleanup: ${err.message}\n`));
  }
}
