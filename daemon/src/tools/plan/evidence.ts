import { HoldfastError } from '@holdfast/shared/errors';
import { isId } from '@holdfast/shared/ids';
import type { EvidenceInput } from '@holdfast/shared/tools';
import type { EvidenceRow } from '../../store/plans-repo.js';
import type { TaskRow } from '../../store/tasks-repo.js';
import type { ToolServices } from '../context.js';

/** A checked evidence item, ready to store (without its task, sequence and time). */
export type CheckedEvidence = Pick<EvidenceRow, 'kind' | 'ref_id' | 'text' | 'exit_code' | 'detail'>;

/** The id field each kind needs; a kind takes no other field. */
const FIELD: Record<EvidenceInput['kind'], keyof EvidenceInput> = { execute: 'execution_task_id', edit: 'edit_id', artifact: 'artifact_id', note: 'text' };

function refuse(index: number, message: string, item: EvidenceInput): never {
  throw new HoldfastError('EVIDENCE_INVALID', `evidence[${index}]: ${message}; nothing was recorded`, { retryable: false, details: { index, kind: item.kind } });
}

/**
 * Checks `complete`'s evidence (issue 11): every item names something this session has — an
 * execution task that has ended (its exit code is recorded; a running one is refreshed from its
 * guardian first), an edit, an artifact — or is a note with text. Unknown ids and ids of another
 * session are refused alike, and one bad item refuses them all.
 * @throws HoldfastError BAD_REQUEST (no evidence), EVIDENCE_INVALID naming the item.
 */
export async function checkEvidence(items: readonly EvidenceInput[] | undefined, sessionId: string, services: ToolServices): Promise<CheckedEvidence[]> {
  if (!items || items.length === 0) {
    throw new HoldfastError('BAD_REQUEST', 'complete needs evidence: at least one of {kind:"execute",execution_task_id}, {kind:"edit",edit_id}, {kind:"artifact",artifact_id}, {kind:"note",text}');
  }
  const out: CheckedEvidence[] = [];
  for (const [i, item] of items.entries()) {
    const field = FIELD[item.kind];
    const value = item[field];
    if (typeof value !== 'string' || value.length === 0) refuse(i, `kind=${item.kind} needs ${field}`, item);
    const extra = (Object.keys(FIELD) as EvidenceInput['kind'][]).map((k) => FIELD[k]).filter((f) => f !== field && item[f] !== undefined);
    if (extra.length > 0) refuse(i, `kind=${item.kind} takes ${field} only, not ${extra.join(', ')}`, item);
    switch (item.kind) {
      case 'execute':
        out.push(await executeEvidence(i, item, value, sessionId, services));
        break;
      case 'edit': {
        const row = isId('edit', value) ? services.files.edits.get(value) : undefined;
        if (!row || row.session_id !== sessionId) refuse(i, `no edit ${value} in this session`, item);
        out.push({ kind: 'edit', ref_id: row.id, text: null, exit_code: null, detail: JSON.stringify({ files: row.files, created_at: row.created_at }) });
        break;
      }
      case 'artifact': {
        const row = isId('artifact', value) ? services.work.artifacts.get(value) : undefined;
        if (!row || row.session_id !== sessionId) refuse(i, `no artifact ${value} in this session`, item);
        out.push({ kind: 'artifact', ref_id: row.id, text: null, exit_code: null, detail: JSON.stringify({ title: row.title, sha256: row.sha256, byte_length: row.byte_length }) });
        break;
      }
      case 'note':
        out.push({ kind: 'note', ref_id: null, text: value, exit_code: null, detail: null });
        break;
    }
  }
  return out;
}

async function executeEvidence(i: number, item: EvidenceInput, id: string, sessionId: string, services: ToolServices): Promise<CheckedEvidence> {
  const { tasks, sync } = services.execution;
  let row: TaskRow | undefined = isId('executionTask', id) ? tasks.get(id) : undefined;
  if (!row || row.session_id !== sessionId) refuse(i, `no execution task ${id} in this session`, item);
  if (row.state === 'running') {
    try {
      const link = await services.sessions.ensureLink(sessionId);
      row = sync.apply(await link.wait({ id: row.id, waitMs: 0 })) ?? row;
    } catch {
      // the stored row is the best we know
    }
  }
  if (row.state === 'running') refuse(i, `execution task ${id} is still running; wait for it with execute(action="attach") first`, item);
  if (row.state === 'waiting_confirmation' || row.state === 'failed') refuse(i, `execution task ${id} never ran (${row.state})`, item);
  const what = row.argv ? (JSON.parse(row.argv) as string[]).join(' ') : row.command;
  return {
    kind: 'execute',
    ref_id: row.id,
    text: null,
    exit_code: row.exit_code,
    detail: JSON.stringify({ state: row.state, command: what, ended_at: row.ended_at, ...(row.signal ? { signal: row.signal } : {}) }),
  };
}
