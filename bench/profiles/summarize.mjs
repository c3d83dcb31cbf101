#!/usr/bin/env node
/**
 * Turns a V8 .cpuprofile into a text summary (committed under bench/profiles/, never the raw
 * profile): total sampled time, self time by function (top N), inclusive ("total") time of the
 * functions of holdfast's own code, and self time by stage — a stage is a group of code named by
 * the file the sampled frame is in (our workspaces, zod, the MCP SDK, msgpack, better-sqlite3,
 * node internals, GC, idle).
 *
 * usage: node bench/profiles/summarize.mjs <file.cpuprofile> [top=40]
 */
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: summarize.mjs <file.cpuprofile> [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 40);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Time per sample: timeDeltas[i] is the time before sample i (µs).
const selfUs = new Map();
for (let i = 0; i < p.samples.length; i++) {
  const d = p.timeDeltas[i + 1] ?? p.timeDeltas[i] ?? 0;
  selfUs.set(p.samples[i], (selfUs.get(p.samples[i]) ?? 0) + d);
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

function stage(cf) {
  const u = cf.url ?? '';
  const f = cf.functionName;
  if (f === '(idle)') return 'idle';
  if (f === '(garbage collector)') return 'gc';
  if (f === '(program)') return 'program (V8/native)';
  if (u.includes('/zod/')) return 'zod (schema checks)';
  if (u.includes('@modelcontextprotocol')) return 'MCP SDK';
  if (u.includes('msgpack')) return 'msgpack';
  if (u.includes('better-sqlite3')) return 'SQLite (better-sqlite3)';
  if (u.includes('/hono/') || u.includes('@hono')) return 'hono (HTTP)';
  const m = /\/(shared|daemon|adapter|guardian)\/dist\/([^/]+)/.exec(u);
  if (m) return `holdfast ${m[1]}/${m[2].replace(/\.js$/, '')}`;
  if (u.startsWith('node:') || u === '') return f === '' ? 'native' : `node ${u || '(native)'}`;
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (nm) return nm[1];
  return 'other';
}

const ours = new Set();
const label = (cf) => {
  const u = (cf.url ?? '').replace(/^.*\/node_modules\//, '').replace(/^.*\/(shared|daemon|adapter|guardian|bench)\/dist\//, '$1/');
  const l = `${cf.functionName || '(anonymous)'} ${u}:${cf.lineNumber + 1}`;
  if (/\/(shared|daemon|adapter)\/dist\//.test(cf.url ?? '')) ours.add(l);
  return l;
};
const selfByFn = new Map();
const selfByStage = new Map();
for (const [id, us] of selfUs) {
  const cf = byId.get(id).callFrame;
  selfByFn.set(label(cf), (selfByFn.get(label(cf)) ?? 0) + us);
  const s = stage(cf);
  selfByStage.set(s, (selfByStage.get(s) ?? 0) + us);
}
// Inclusive time of each function label (counted once per sample even when recursive).
const totalByFn = new Map();
for (const [id, us] of selfUs) {
  const seen = new Set();
  for (let n = id; n !== undefined; n = parent.get(n)) {
    const l = label(byId.get(n).callFrame);
    if (seen.has(l)) continue;
    seen.add(l);
    totalByFn.set(l, (totalByFn.get(l) ?? 0) + us);
  }
}
const busy = totalUs - (selfByStage.get('idle') ?? 0);
const ms = (us) => (us / 1000).toFixed(1).padStart(8);
const pct = (us) => ((100 * us) / busy).toFixed(1).padStart(5) + ' %';
const out = [];
out.push(`profile ${file.replace(/^.*\//, '')}: ${(totalUs / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy (not idle); % are of busy time`);
out.push('', 'self time by stage:');
for (const [s, us] of [...selfByStage].sort((a, b) => b[1] - a[1])) if (s !== 'idle') out.push(`${ms(us)} ms ${pct(us)}  ${s}`);
out.push('', `self time by function (top ${top}):`);
for (const [l, us] of [...selfByFn].sort((a, b) => b[1] - a[1]).slice(0, top)) if (!l.startsWith('(idle)')) out.push(`${ms(us)} ms ${pct(us)}  ${l}`);
out.push('', `total (inclusive) time of holdfast functions (top ${top}):`);
for (const [l, us] of [...totalByFn].filter(([l]) => ours.has(l)).sort((a, b) => b[1] - a[1]).slice(0, top)) out.push(`${ms(us)} ms ${pct(us)}  ${l}`);
process.stdout.write(out.join('\n') + '\n');
