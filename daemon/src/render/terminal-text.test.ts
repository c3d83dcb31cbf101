import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderTerminalText } from './terminal-text.js';

const r = (s: string): string => renderTerminalText(Buffer.from(s, 'utf8'));

describe('renderTerminalText', () => {
  it('strips colours and keeps text', () => {
    assert.equal(r('\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[m\r\n'), 'red and green');
  });
  it('applies carriage-return overwrites like a terminal', () => {
    assert.equal(r('progress 10%\rprogress 99%\rdone\n'), 'doneress 99%');
    assert.equal(r('50%\r\x1b[Kdone\n'), 'done');
  });
  it('applies column moves, so a spinner redrawn with ESC[1G leaves no trace', () => {
    assert.equal(r('\x1b[1G⠙\x1b[0K\x1b[1G\x1b[0Kbad.ts(1,7): error\n'), 'bad.ts(1,7): error');
    assert.equal(r('abcdef\x1b[3DXY\x1b[1CZ\n'), 'abcXYfZ');
  });
  it('removes bracketed paste and OSC markers', () => {
    assert.equal(r('\x1b[?2004h\x1b]633;HFabc;C\x07out\x1b]0;title\x1b\\put\x1b[?2004l\n'), 'output');
  });
  it('applies backspaces and tabs, keeps non-ASCII', () => {
    assert.equal(r('ab\bc\tx 名前\n'), 'ac      x 名前');
  });
  it('drops a UTF-8 sequence cut at the start', () => {
    assert.equal(renderTerminalText(Buffer.from('名前', 'utf8').subarray(1)), '前');
  });
});
