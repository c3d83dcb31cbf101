import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAction, type InputStep } from './input-plan.js';

const at = { x: 10, y: 20 };
const state = { x: 0, y: 0, buttons: 0 };
const sends = (steps: InputStep[]) => steps.filter((s) => s.kind !== 'pause');
const badRequest = (fn: () => unknown, re: RegExp) => assert.throws(fn, (e: { code: string; message: string }) => e.code === 'BAD_REQUEST' && re.test(e.message));

describe('input planning (issue 15 §6)', () => {
  it('clicks, double-clicks and scrolls at a point with the right button masks', () => {
    assert.deepEqual(sends(planAction({ action: 'click', at, button: 'right' }, state, 0)), [
      { kind: 'pointer', x: 10, y: 20, mask: 0 },
      { kind: 'pointer', x: 10, y: 20, mask: 4 },
      { kind: 'pointer', x: 10, y: 20, mask: 0 },
    ]);
    assert.equal(sends(planAction({ action: 'double_click', at }, state, 0)).filter((s) => s.kind === 'pointer' && s.mask === 1).length, 2);
    const wheel = sends(planAction({ action: 'scroll', at, dy: -2, dx: 1 }, state, 0)).map((s) => (s.kind === 'pointer' ? s.mask : -1));
    assert.deepEqual(wheel, [0, 8, 0, 8, 0, 64, 0]);
  });

  it('drags with the button held through intermediate moves', () => {
    const steps = sends(planAction({ action: 'drag', at, to: { x: 110, y: 20 } }, state, 0));
    assert.deepEqual(steps[1], { kind: 'pointer', x: 10, y: 20, mask: 1 });
    assert.deepEqual(steps.at(-1), { kind: 'pointer', x: 110, y: 20, mask: 0 });
    assert.ok(steps.slice(2, -1).every((s) => s.kind === 'pointer' && s.mask === 1));
    assert.ok(steps.length > 10);
  });

  it('presses hotkey modifiers first and releases them last; types with pauses between characters', () => {
    const keys = sends(planAction({ action: 'hotkey', keys: ['A', 'CTRL', 'SHIFT'] }, state, 0)).map((s) => (s.kind === 'key' ? `${s.down ? '+' : '-'}${s.keysym.toString(16)}` : ''));
    assert.deepEqual(keys, ['+ffe3', '+ffe1', '+61', '-61', '-ffe1', '-ffe3']);
    const typed = planAction({ action: 'type_text', text: 'ab' }, state, 7);
    assert.deepEqual(typed.map((s) => s.kind), ['key', 'key', 'pause', 'key', 'key']);
  });

  it('names the missing or bad field', () => {
    badRequest(() => planAction({ action: 'click' }, state, 0), /needs x and y/);
    badRequest(() => planAction({ action: 'drag', at }, state, 0), /to_x and to_y/);
    badRequest(() => planAction({ action: 'scroll', at }, state, 0), /dx and\/or dy/);
    badRequest(() => planAction({ action: 'scroll', dy: 51 }, state, 0), /±50/);
    badRequest(() => planAction({ action: 'key_press', key: 'HYPER' }, state, 0), /unknown key "HYPER"/);
    badRequest(() => planAction({ action: 'hotkey', keys: [] }, state, 0), /1 to 6 keys/);
    badRequest(() => planAction({ action: 'type_text', text: 'x'.repeat(2001) }, state, 0), /2000 characters/);
  });
});
