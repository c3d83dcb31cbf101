import { sep } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import type { SandboxRequirement } from './requirement.js';

/**
 * The confinement a session runs under, as its row records it (`sessions.sandbox`, JSON; NULL =
 * unconfined), issue 17. The file tools read it so that they and the sandbox agree on what the
 * agent may change: writes only beneath `writable`, nothing beneath `hidden` read or written.
 */
export interface SessionSandbox {
  mode: 'bwrap' | 'landlock';
  network: 'on' | 'off';
  /** Absolute, canonical; the workspace root first. */
  writable: string[];
  /** Absolute, canonical: folders the sandbox hides (bwrap). */
  hidden: string[];
}

/** The public form (`SessionView.sandbox`): the mode in force and the network setting. */
export interface SandboxView {
  mode: 'off' | 'bwrap' | 'landlock';
  network: 'on' | 'off';
}

/** Parses the row's column (null or unreadable = unconfined). */
export function parseSessionSandbox(column: string | null | undefined): SessionSandbox | null {
  if (!column) return null;
  try {
    const v = JSON.parse(column) as SessionSandbox;
    return v && (v.mode === 'bwrap' || v.mode === 'landlock') && Array.isArray(v.writable) && Array.isArray(v.hidden) ? v : null;
  } catch {
    return null;
  }
}

/** `SessionView.sandbox` of a row's column. */
export function sandboxView(column: string | null | undefined): SandboxView {
  const s = parseSessionSandbox(column);
  return s ? { mode: s.mode, network: s.network } : { mode: 'off', network: 'on' };
}

/**
 * Why a live session does not meet a requirement (null when it does): it runs unconfined, or with
 * another mechanism than the one required, or with the network on when it must be off. Writable
 * paths are fixed when a session starts and are not compared.
 */
export function unmetRequirement(s: SessionSandbox | null, req: SandboxRequirement): string | null {
  if (req.mode === 'off') return null;
  if (s === null) return `it runs without a sandbox, but ${req.source} requires mode ${req.mode}`;
  if ((req.mode === 'bwrap' || req.mode === 'landlock') && s.mode !== req.mode) return `it runs under ${s.mode}, but ${req.source} requires ${req.mode}`;
  if (req.network === 'off' && s.network === 'on') return `its network is on, but ${req.source} requires network off`;
  return null;
}

/** `p` is `parent` or beneath it (absolute paths). */
export function isInside(parent: string, p: string): boolean {
  return p === parent || p.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/**
 * What the sandbox makes of an absolute canonical path, as its mounts do (the deepest one that
 * covers it decides, guardian/src/sandbox-launch.ts): `hidden`, `writable`, or `read-only`.
 */
export function sandboxAccess(s: SessionSandbox, real: string): { access: 'hidden' | 'writable' | 'read-only'; by: string | null } {
  let best: { access: 'hidden' | 'writable'; by: string } | null = null;
  const consider = (list: string[], access: 'hidden' | 'writable'): void => {
    for (const p of list) if (isInside(p, real) && (best === null || p.length > best.by.length)) best = { access, by: p };
  };
  consider(s.writable, 'writable');
  consider(s.hidden, 'hidden');
  return best ?? { access: 'read-only', by: null };
}

/**
 * Refuses a file-tool read of a path the session's sandbox hides (`real` = canonical absolute).
 * @throws HoldfastError POLICY_DENIED.
 */
export function assertSandboxReadable(s: SessionSandbox | null, real: string, rel: string): void {
  if (s === null) return;
  const a = sandboxAccess(s, real);
  if (a.access === 'hidden') {
    throw new HoldfastError('POLICY_DENIED', `${rel} is inside ${a.by}, which this session's ${s.mode} sandbox hides (holdfast's own files); the file tools keep to the same limits`, { details: { path: rel, hidden: a.by } });
  }
}

/**
 * Refuses a file-tool write outside the session's writable set, or into a hidden folder.
 * @throws HoldfastError POLICY_DENIED.
 */
export function assertSandboxWritable(s: SessionSandbox | null, real: string, rel: string): void {
  if (s === null) return;
  assertSandboxReadable(s, real, rel);
  if (sandboxAccess(s, real).access !== 'writable') {
    throw new HoldfastError('POLICY_DENIED', `${rel} is read-only in this session's ${s.mode} sandbox (writable: ${s.writable.join(', ')})`, { details: { path: rel, writable: s.writable } });
  }
}
