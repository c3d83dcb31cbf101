import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EchoRewriter, renderDisplay } from './echo-rewrite.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const text = (x: Buffer | null): string | null => (x === null ? null : x.toString('latin1'));

describe('echo rewrite (issue 9, item 8)', () => {
  it('replaces the echo of the typed line, keeps what follows it', () => {
    const e = new EchoRewriter();
    e.expect('git commit -m "it\'s"');
    assert.equal(e.data(b(`__hf_c=$'git commit -m "it\\'s"'; eval "$__hf_c"`)), null);
    assert.equal(e.data(b('\r\n\x1b[?2004l\r')), null);
    assert.equal(text(e.marker('C')), 'git commit -m "it\'s"\r\n\x1b[?2004l\r');
    assert.equal(e.holding, false);
    assert.equal(text(e.data(b('output'))), 'output', 'after the marker, data passes');
  });

  it('gives the bytes back untouched when they are not an echo', () => {
    const e = new EchoRewriter();
    e.expect('x');
    e.data(b('no line end'));
    assert.equal(text(e.marker('C')), 'no line end', 'no \\r\\n: untouched');
    e.expect('x');
    e.data(b('typed\r\n'));
    assert.equal(text(e.marker('A')), 'typed\r\n', 'another marker: untouched');
    e.expect('x');
    e.data(b('held'));
    assert.equal(text(e.release()), 'held');
    e.expect('x');
    assert.equal(text(e.data(Buffer.alloc(EchoRewriter.MAX_HELD_BYTES + 1, 0x61)))?.length, EchoRewriter.MAX_HELD_BYTES + 1, 'too much: released');
  });

  it('renders the command as a terminal shows it', () => {
    assert.equal(renderDisplay('a\nb\tc\x1bd\x7f').toString(), 'a\r\nb\tc^[d^?');
  });
});
