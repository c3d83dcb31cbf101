import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HoldfastError } from '@holdfast/shared/protocol';
import { OperationLedger } from './operation-ledger.js';

describe('operation_id ledger (issue 15 §6)', () => {
  it('answers a repeat with the first outcome without running again, and refuses other parameters', async () => {
    const l = new OperationLedger<string>();
    let runs = 0;
    const fn = async (): Promise<string> => `outcome ${++runs}`;
    assert.deepEqual(await l.run('op1', 'd1', fn), { result: 'outcome 1', replayed: false });
    assert.deepEqual(await l.run('op1', 'd1', fn), { result: 'outcome 1', replayed: true });
    await assert.rejects(l.run('op1', 'd2', fn), (e: HoldfastError) => e.code === 'IDEMPOTENCY_CONFLICT');
    assert.equal(runs, 1);
  });

  it('lets a concurrent repeat wait for the first attempt, and forgets an attempt that was refused', async () => {
    const l = new OperationLedger<string>();
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    let runs = 0;
    const first = l.run('op', 'd', async () => {
      runs++;
      await slow;
      return 'done';
    });
    const second = l.run('op', 'd', async () => `again ${++runs}`);
    release();
    assert.deepEqual(await Promise.all([first, second]), [{ result: 'done', replayed: false }, { result: 'done', replayed: true }]);
    await assert.rejects(l.run('refused', 'd', async () => Promise.reject(new HoldfastError('DESKTOP_PAUSED', 'paused'))));
    assert.deepEqual(await l.run('refused', 'd', async () => 'now'), { result: 'now', replayed: false });
  });

  it('keeps the last 128 ids for at least 5 minutes', async () => {
    let now = 0;
    const l = new OperationLedger<number>(() => now);
    for (let i = 0; i < 130; i++) await l.run(`op${i}`, 'd', async () => i);
    assert.equal(l.size, 128);
    assert.deepEqual(await l.run('op2', 'd', async () => -1), { result: 2, replayed: true });
    assert.deepEqual(await l.run('op0', 'd', async () => -1), { result: -1, replayed: false }, 'beyond the last 128');
    now = 5 * 60_000;
    assert.deepEqual(await l.run('op3', 'd', async () => -1), { result: 3, replayed: true }, 'still kept at 5 min');
    now = 5 * 60_000 + 1;
    assert.deepEqual(await l.run('op4', 'd', async () => -1), { result: -1, replayed: false }, 'gone after 5 min');
  });
});
