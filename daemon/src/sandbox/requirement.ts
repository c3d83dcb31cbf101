import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SandboxConfig, SandboxMode, SandboxNetwork, SandboxSettings } from '@holdfast/shared/config';

/** What a principal's sessions must run under (issue 17): config.yaml, then the principal's keys. */
export interface SandboxRequirement {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** Extra writable paths, absolute (`~` expanded against the daemon's home). */
  writable: string[];
  /** Where the keys came from, for messages: `security.sandbox`, `security.sandbox.principals["oauth:*"]`, `principal "ci"`. */
  source: string;
}

/** `~` and `~/…` against `home`; other paths unchanged. */
export function expandHome(p: string, home: string = homedir()): string {
  if (p === '~') return home;
  return p.startsWith('~/') ? join(home, p.slice(2)) : p;
}

function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/**
 * The `security.sandbox.principals` entry for `principal`: its exact name, else the longest
 * pattern with `*` that matches it (`oauth:*` covers every OAuth client), else none.
 */
export function principalEntry(cfg: SandboxConfig, principal: string): { key: string; settings: SandboxSettings } | null {
  const exact = cfg.principals[principal];
  if (exact) return { key: principal, settings: exact };
  let best: { key: string; settings: SandboxSettings } | null = null;
  for (const [key, settings] of Object.entries(cfg.principals)) {
    if (!key.includes('*') || !globToRegExp(key).test(principal)) continue;
    if (best === null || key.length > best.key.length) best = { key, settings };
  }
  return best;
}

/**
 * The sandbox a principal's new sessions need (issue 17, docs/sandbox.md): `security.sandbox`,
 * overlaid key by key with the matching `security.sandbox.principals` entry, then with the keys the
 * principal carries in its call context (principals file `sandbox:`, or whatever an
 * authentication layer attaches to the principal).
 */
export function sandboxRequirement(cfg: SandboxConfig, principal: string, call?: SandboxSettings, home: string = homedir()): SandboxRequirement {
  let mode = cfg.mode;
  let network = cfg.network;
  let writable: readonly string[] = cfg.writable;
  const sources = ['security.sandbox'];
  const layer = (s: SandboxSettings, source: string): void => {
    if (s.mode !== undefined) mode = s.mode;
    if (s.network !== undefined) network = s.network;
    if (s.writable !== undefined) writable = s.writable;
    if (s.mode !== undefined || s.network !== undefined || s.writable !== undefined) sources.push(source);
  };
  const entry = principalEntry(cfg, principal);
  if (entry) layer(entry.settings, `security.sandbox.principals[${JSON.stringify(entry.key)}]`);
  if (call) layer(call, `principal "${principal}"`);
  return { mode, network, writable: writable.map((p) => expandHome(p, home)), source: sources[sources.length - 1]! };
}
