import picomatch from 'picomatch';
import { WorkLimits } from '@holdfast/shared/constants';
import { ControlEvents, type ControlParsedParams, type ControlResult, type EventsBatch } from '@holdfast/shared/control';
import type { RpcPeer } from '@holdfast/shared/wire';
import type { Logger } from '../log.js';
import type { EventRow, EventsRepo } from '../store/events-repo.js';
import { streamEvent, type EventViewStores } from './stream-event.js';

/** Parameters of `events.follow`. */
export type FollowParams = ControlParsedParams<'events.follow'>;

/** Rows scanned backwards at most to find the `--history` events (filters may match few). */
const HISTORY_SCAN_MAX_ROWS = 20_000;

/** One follower: where it is in the event log and what it wants to see. */
interface Subscription {
  peer: RpcPeer;
  params: FollowParams;
  /** Last sequence looked at (pushed or filtered out). */
  cursor: number;
  match: (row: EventRow) => boolean;
  pumping: boolean;
  dirty: boolean;
  closed: boolean;
}

/**
 * The filter of a stream (issue 11): `tool` and `status` exactly; `operation` the call's action
 * (or view) or the last part of a lifecycle kind (`created` of `session.created`); `path` a
 * workspace path the call named — that path, anything under it, or a glob (`src/**`).
 */
export function eventFilter(p: Pick<FollowParams, 'tool' | 'status' | 'operation' | 'path'>): (row: EventRow) => boolean {
  const glob = p.path !== undefined && /[*?[{]/.test(p.path) ? picomatch(p.path, { dot: true }) : null;
  const dir = p.path?.replace(/\/+$/, '');
  return (row) => {
    if (p.tool !== undefined && row.tool !== p.tool) return false;
    if (p.status !== undefined && row.status !== p.status) return false;
    if (p.operation === undefined && p.path === undefined) return true;
    const data = row.data ? (JSON.parse(row.data) as Record<string, unknown>) : {};
    if (p.operation !== undefined && data.action !== p.operation && row.kind !== p.operation && row.kind.split('.').pop() !== p.operation) return false;
    if (dir !== undefined) {
      const paths = Array.isArray(data.paths) ? data.paths.filter((x): x is string => typeof x === 'string') : [];
      if (!paths.some((x) => (glob ? glob(x) : x === dir || x.startsWith(`${dir}/`) || dir === '' || dir === '.'))) return false;
    }
    return true;
  };
}

/**
 * The live observation streams (issue 11 `holdfast observe`, control method `events.follow`). Each
 * follower has a cursor in the event log and is served by a pump that reads stored rows after it —
 * never the in-memory queue — so only stored events are pushed, in sequence order, each once; the
 * pump runs again after every commit. A follower that resumes with `after_seq` (after a daemon
 * restart) gets every matching event after it. Pushes wait for the socket to drain, so a slow
 * follower slows only its own pump and memory stays bounded (one page).
 */
export class EventStreamHub {
  private readonly subs = new Map<RpcPeer, Map<string, Subscription>>();
  private stopCommitted: (() => void) | null = null;

  constructor(
    private readonly events: EventsRepo,
    private readonly stores: EventViewStores,
    private readonly workspaceExists: (name: string) => boolean,
    private readonly log: Logger,
  ) {}

  /** Starts listening to commits; while anyone follows, the event writer flushes on the next turn. */
  start(): void {
    this.stopCommitted = this.events.onCommitted(() => {
      for (const m of this.subs.values()) for (const s of m.values()) void this.pump(s);
    });
    this.events.eager = () => this.subs.size > 0;
  }

  stop(): void {
    this.stopCommitted?.();
    for (const m of this.subs.values()) for (const s of m.values()) s.closed = true;
    this.subs.clear();
  }

  /**
   * `events.follow`: registers a follower and starts its pump (after this answer is sent).
   * @throws HoldfastError WORKSPACE_NOT_FOUND for a workspace that is not registered.
   */
  follow(peer: RpcPeer, p: FollowParams, notFound: () => Error): ControlResult<'events.follow'> {
    if (!this.workspaceExists(p.workspace)) throw notFound();
    const match = eventFilter(p);
    const head = this.events.headSeq();
    const cursor = p.after_seq ?? this.historyStart(p.workspace, head, p.history, match);
    let mine = this.subs.get(peer);
    if (!mine) {
      const created = new Map<string, Subscription>();
      this.subs.set(peer, created);
      peer.once('close', () => {
        for (const s of created.values()) s.closed = true;
        this.subs.delete(peer);
      });
      mine = created;
    }
    const old = mine.get(p.stream);
    if (old) old.closed = true;
    const sub: Subscription = { peer, params: p, cursor, match, pumping: false, dirty: false, closed: false };
    mine.set(p.stream, sub);
    setImmediate(() => void this.pump(sub));
    return { stream: p.stream, workspace: p.workspace, after_seq: cursor, head_seq: head };
  }

  /** `events.unfollow`. */
  unfollow(peer: RpcPeer, stream: string): boolean {
    const s = this.subs.get(peer)?.get(stream);
    if (!s) return false;
    s.closed = true;
    this.subs.get(peer)!.delete(stream);
    if (this.subs.get(peer)!.size === 0) this.subs.delete(peer);
    return true;
  }

  /** The cursor that replays the last `n` matching events up to `head`. */
  private historyStart(workspace: string, head: number, n: number, match: (row: EventRow) => boolean): number {
    if (n === 0) return head;
    let before = head + 1;
    let found = 0;
    let scanned = 0;
    while (scanned < HISTORY_SCAN_MAX_ROWS) {
      const rows = this.events.streamBefore(workspace, before, WorkLimits.OBSERVE_PAGE_EVENTS);
      if (rows.length === 0) return 0;
      for (const r of rows) {
        if (match(r) && ++found === n) return r.seq - 1;
        before = r.seq;
      }
      scanned += rows.length;
    }
    return before - 1;
  }

  private async pump(sub: Subscription): Promise<void> {
    if (sub.closed) return;
    if (sub.pumping) {
      sub.dirty = true;
      return;
    }
    sub.pumping = true;
    try {
      do {
        sub.dirty = false;
        for (;;) {
          const rows = this.events.streamAfter(sub.params.workspace, sub.cursor, WorkLimits.OBSERVE_PAGE_EVENTS);
          if (rows.length === 0 || sub.closed) break;
          const last = rows[rows.length - 1]!.seq;
          const events = await Promise.all(rows.filter(sub.match).map((r) => streamEvent(r, sub.params, this.stores)));
          if (sub.closed) return;
          const batch: EventsBatch = { stream: sub.params.stream, events, cursor: last };
          await sub.peer.emitEvent(ControlEvents.events, batch);
          sub.cursor = last;
          if (rows.length < WorkLimits.OBSERVE_PAGE_EVENTS) break;
        }
      } while (sub.dirty && !sub.closed);
    } catch (err) {
      sub.closed = true;
      if (sub.peer.isOpen) this.log.warn('observe stream stopped', { stream: sub.params.stream, error: (err as Error).message });
    } finally {
      sub.pumping = false;
    }
  }
}
