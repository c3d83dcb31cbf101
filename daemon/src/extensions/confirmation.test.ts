import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openDatabase } from '../store/db.js';
import { ExtensionConfirmationsRepo } from '../store/extension-confirmations-repo.js';
import { checkConfirmation, type ConfirmRequest } from './confirmation.js';

describe('extension confirmations (issue 13)', () => {
  const repo = new ExtensionConfirmationsRepo(openDatabase(':memory:'));
  const base: ConfirmRequest = { kind: 'mcp', target: 's/t', revision: 'r1', args: { b: 1, a: 'x' }, purpose: 'p', sessionId: 'rs_1', principal: 'p', summary: 'call t', userConfirmed: false, ttlS: 600 };

  it('asks first, runs on the exact repeat once (key order of the arguments does not matter)', () => {
    const asked = checkConfirmation(repo, base);
    assert.equal(asked.run, false);
    const ok = checkConfirmation(repo, { ...base, args: { a: 'x', b: 1 }, userConfirmed: true });
    assert.equal(ok.run, true);
    assert.throws(() => checkConfirmation(repo, { ...base, userConfirmed: true }), /CONFIRMATION_NOT_FOUND|no confirmation/);
  });

  it('is bound to target, revision, arguments and purpose', () => {
    assert.equal(checkConfirmation(repo, { ...base, sessionId: 'rs_2' }).run, false);
    for (const other of [{ target: 's/u' }, { revision: 'r2' }, { args: { b: 2, a: 'x' } }, { purpose: null }]) {
      assert.throws(() => checkConfirmation(repo, { ...base, sessionId: 'rs_2', ...other, userConfirmed: true }), /no confirmation/);
    }
    assert.equal(checkConfirmation(repo, { ...base, sessionId: 'rs_2', userConfirmed: true }).run, true);
  });

  it('an expired confirmation is asked again, never used', () => {
    const first = checkConfirmation(repo, { ...base, sessionId: 'rs_3', ttlS: 1 });
    assert.equal(first.run, false);
    if (first.run) return;
    repo.renew(first.row.id, Date.now() - 1);
    const again = checkConfirmation(repo, { ...base, sessionId: 'rs_3', userConfirmed: true });
    assert.equal(again.run, false);
    assert.equal(!again.run && again.previousExpired, true);
  });
});
