import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamEvent } from '@holdfast/shared/control';
import { colourMode, palette } from './palette.js';
import { formatDuration, formatEvent, verbOf } from './text-format.js';

const ev = (over: Partial<StreamEvent>): StreamEvent => ({ sequence: 7, at: '2026-01-02T03:04:05.000Z', kind: 'tool.call', workspace: 'ws', remote_session_id: 'rs_x', tool: 'execute', status: 'succeeded', data: {}, ...over });

describe('observe text layout (issue 11)', () => {
  it('colour only on a TTY, none with NO_COLOR, 24-bit with COLORTERM=truecolor', () => {
    assert.equal(colourMode(false, { COLORTERM: 'truecolor' }), 'none');
    assert.equal(colourMode(true, { NO_COLOR: '1', COLORTERM: 'truecolor' }), 'none');
    assert.equal(colourMode(true, { NO_COLOR: '' }), 'basic', 'an empty NO_COLOR does not count (no-color.org)');
    assert.equal(colourMode(true, { COLORTERM: 'truecolor' }), 'truecolor');
    assert.match(palette('truecolor').ok('x'), /\x1b\[38;2;/);
    assert.equal(palette('none').fail('x'), 'x');
  });

  it('verbs with targets for tools and lifecycle events', () => {
    assert.deepEqual(verbOf(ev({ tool: 'read', data: { action: 'search', target: '"x" in src' } })), { verb: 'Searched', target: '"x" in src' });
    assert.deepEqual(verbOf(ev({ tool: 'edit', data: { target: 'a.ts' } })), { verb: 'Edited', target: 'a.ts' });
    assert.deepEqual(verbOf(ev({ tool: 'plan', data: { action: 'advance', target: 'Fix' } })), { verb: 'Plan', target: 'advance: Fix' });
    assert.deepEqual(verbOf(ev({ tool: 'progress', data: { progress_status: 'milestone', target: 'half' } })), { verb: 'Progress', target: 'milestone: half' });
    assert.deepEqual(verbOf(ev({ kind: 'session.closed', tool: null, status: null, data: { reason: 'ttl' } })), { verb: 'Session', target: 'closed rs_x (ttl)' });
    assert.deepEqual(verbOf(ev({ kind: 'session.awaiting_input', tool: null, status: null, data: { execution_task_id: 'et_1', command: "read -p 'go? ' x" } })), { verb: 'Waiting for input', target: "read -p 'go? ' x" });
    assert.equal(formatDuration(1530), '1.5 s');
  });

  it('activity and purpose before the call, facts at two spaces, output at four with stderr marked', () => {
    const lines = formatEvent(
      ev({
        data: { duration_ms: 12, exit_code: 2, target: 'make', purpose: 'build it', activity: { intent: 'ship', next: 'test', changed: ['next'] } },
        output: { streams: [{ name: 'stdout', first_line: 9, total_lines: 10, lines: ['a', 'b'] }, { name: 'stderr', first_line: 1, total_lines: 1, lines: ['boom'] }] },
      }),
      palette('none'),
      { detail: false },
    );
    assert.deepEqual(lines, ['» next: test', '# build it', '✓ Ran make', '  12 ms · exit 2 · 03:04:05', '     …   8 earlier line(s) of stdout', '     9 │ a', '    10 │ b', '    1 ! boom']);
  });
});
