import { newId } from '@holdfast/shared/ids';
import { ACTIVITY_KEYS, type ActivityKey } from '@holdfast/shared/tool-constants';
import type { ActivityUpdate } from '@holdfast/shared/tools';
import type { ActivityRow } from '../store/activity-repo.js';

/** The call an activity snapshot belongs to. */
export interface ActivityCall {
  tool: string;
  action?: string;
  request_id?: string;
}

/**
 * The stored activity of a session after one update (issue 11): the current turn's fields merged
 * with what this call changed. `turn_id` is new whenever the update has an `intent` (the other
 * fields then start empty); `sequence` is the sequence number of the call's event; `changed` lists
 * the keys this call sent. Nothing here is derived from tool arguments or results.
 */
export interface ActivitySnapshot extends Partial<Record<ActivityKey, string>> {
  turn_id: string;
  sequence: number;
  call: ActivityCall;
  changed: ActivityKey[];
}

/** Merges an update into the session's previous snapshot; `sequence` is filled in when the event is stored. */
export function nextActivity(prev: ActivityRow | undefined, update: ActivityUpdate, call: ActivityCall): ActivitySnapshot {
  const changed = ACTIVITY_KEYS.filter((k) => update[k] !== undefined);
  const newTurn = update.intent !== undefined || prev === undefined;
  const base: Partial<Record<ActivityKey, string>> = {};
  if (!newTurn) {
    const old = JSON.parse(prev.state) as Partial<Record<ActivityKey, string>>;
    for (const k of ACTIVITY_KEYS) if (typeof old[k] === 'string') base[k] = old[k];
  }
  const snapshot: ActivitySnapshot = { turn_id: newTurn ? newId('turn') : prev.turn_id, sequence: 0, call, changed };
  for (const k of ACTIVITY_KEYS) {
    const v = update[k] ?? base[k];
    if (v !== undefined) snapshot[k] = v;
  }
  return snapshot;
}
