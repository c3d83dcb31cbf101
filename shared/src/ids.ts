import { monotonicFactory } from 'ulid';

/**
 * Identifiers (DESIGN §4.1): a prefix naming the namespace + a 26-character ULID (Crockford
 * base32, time-ordered). Namespaces never mix: a `task_` id is never accepted where an `rs_` id
 * is expected.
 */
export const ID_PREFIXES = {
  remoteSession: 'rs_',
  planTask: 'pt_',
  executionTask: 'task_',
  edit: 'ed_',
  operation: 'op_',
  artifact: 'ar_',
  plan: 'pl_',
  confirmation: 'cf_',
  /** A `move_out` request (issue 4). */
  moveRequest: 'mv_',
  /** An activity turn: a new one starts with each `activity.intent` (issue 11). */
  turn: 'tn_',
  /** An environment snapshot saved by `environment` (issue 12). */
  environmentSnapshot: 'env_',
  /** A desktop connection of a session (issue 15). */
  desktopSession: 'ds_',
  /** A desktop screenshot whose pixels actions may target (issue 15). */
  observation: 'obs_',
  /** A request for a person to pick and authorize a desktop (issue 15 `desktop_open`). */
  desktopView: 'view_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const nextUlid = monotonicFactory();
const ULID_RE = '[0-9A-HJKMNP-TV-Z]{26}';
const matchers = new Map<IdKind, RegExp>(
  (Object.keys(ID_PREFIXES) as IdKind[]).map((k) => [k, new RegExp(`^${ID_PREFIXES[k]}${ULID_RE}$`)]),
);

/** A new id of the given kind, e.g. `newId('remoteSession')` → `rs_01J…` (29 chars). */
export function newId(kind: IdKind): string {
  return ID_PREFIXES[kind] + nextUlid();
}

/** True when `value` is a well-formed, complete id of that kind (never a prefix or a guess). */
export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && matchers.get(kind)!.test(value);
}
