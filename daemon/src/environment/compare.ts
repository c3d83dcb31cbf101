import type { EnvironmentReading } from './reading.js';

/** One difference between two readings: a flat key (`toolchains.node`, `path[/opt/bin]`, `env[FOO]`). */
export interface EnvironmentChange {
  key: string;
  from?: string;
  to?: string;
}

/** What `compare` lists (issue 12). */
export interface EnvironmentDiff {
  added: EnvironmentChange[];
  removed: EnvironmentChange[];
  changed: EnvironmentChange[];
}

/** Free disk that moved by less than this share of the disk is not a change. */
const DISK_CHANGE_SHARE = 0.05;

/** The stable facts of a reading as flat key → value (time, durations and free memory left out). */
export function flatten(r: EnvironmentReading): Map<string, string> {
  const m = new Map<string, string>();
  m.set('os.name', r.os.name);
  m.set('os.kernel', r.os.kernel);
  m.set('os.arch', r.os.arch);
  m.set('os.hostname', r.os.hostname);
  m.set('cpu.count', String(r.cpu.count));
  m.set('memory.total_bytes', String(r.memory.total_bytes));
  if (r.disk) m.set('disk.path', r.disk.path);
  for (const [k, v] of Object.entries(r.locale)) m.set(`locale.${k}`, v);
  if (r.shell.path) m.set('shell.path', r.shell.path);
  if (r.shell.env) m.set('shell.env', r.shell.env);
  r.path.forEach((p, i) => m.set(`path[${p}]`, String(i)));
  for (const [name, t] of Object.entries(r.toolchains)) {
    if (t.status === 'missing') continue;
    m.set(`toolchains.${name}`, t.status === 'ok' ? (t.version ?? t.status) : t.status);
    if (t.path) m.set(`toolchains.${name}.path`, t.path);
  }
  for (const n of r.env_names) m.set(`env[${n}]`, 'set');
  return m;
}

/**
 * What changed from `before` to `after`: keys only in `after` are added, only in `before`
 * removed, in both with another value changed (a PATH entry's value is its position). Free disk is
 * a change only when it moved by 5 % of the disk or more.
 */
export function compareReadings(before: EnvironmentReading, after: EnvironmentReading): EnvironmentDiff {
  const a = flatten(before);
  const b = flatten(after);
  const diff: EnvironmentDiff = { added: [], removed: [], changed: [] };
  for (const [k, v] of b) {
    const old = a.get(k);
    if (old === undefined) diff.added.push({ key: k, to: v });
    else if (old !== v) diff.changed.push({ key: k, from: old, to: v });
  }
  for (const [k, v] of a) if (!b.has(k)) diff.removed.push({ key: k, from: v });
  if (before.disk && after.disk && before.disk.path === after.disk.path) {
    const moved = Math.abs(before.disk.free_bytes - after.disk.free_bytes);
    if (moved >= DISK_CHANGE_SHARE * Math.max(1, after.disk.total_bytes)) diff.changed.push({ key: 'disk.free_bytes', from: String(before.disk.free_bytes), to: String(after.disk.free_bytes) });
  }
  return diff;
}
