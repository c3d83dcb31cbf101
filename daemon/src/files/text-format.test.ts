import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { detectCharset } from './charset.js';
import { factsFromBytes } from './file-facts.js';
import { detectFormat } from './text-format.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('format detection (issue 4)', () => {
  it('LF, CRLF, CR, mixed and none, with counts and the final newline', () => {
    assert.deepEqual(detectFormat(b('a\nb\n')), { charset: 'utf-8', bom: false, line_ending: 'LF', line_ending_counts: { lf: 2, crlf: 0, cr: 0 }, final_newline: true });
    const crlf = detectFormat(b('a\r\nb\r\nc\r\n'));
    assert.equal(crlf.line_ending, 'CRLF');
    assert.deepEqual(crlf.line_ending_counts, { lf: 0, crlf: 3, cr: 0 });
    assert.equal(detectFormat(b('a\rb\r')).line_ending, 'CR');
    const mixed = detectFormat(b('a\r\nb\nc\rd'));
    assert.equal(mixed.line_ending, 'mixed');
    assert.deepEqual(mixed.line_ending_counts, { lf: 1, crlf: 1, cr: 1 });
    assert.equal(mixed.final_newline, false);
    assert.equal(detectFormat(b('single line')).line_ending, 'none');
    assert.equal(detectFormat(b('')).final_newline, false);
  });

  it('a BOM is recognised and not counted as text', () => {
    const f = detectFormat(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b('x\n')]));
    assert.equal(f.charset, 'utf-8');
    assert.equal(f.bom, true);
    assert.equal(f.line_ending, 'LF');
  });

  it('UTF-16LE and UTF-16BE with BOM are text with counted line endings', () => {
    const le = iconv.encode('héllo\r\nwörld\r\n', 'utf-16le', { addBOM: true });
    const f = detectFormat(le);
    assert.equal(f.charset, 'utf-16le');
    assert.equal(f.bom, true);
    assert.equal(f.line_ending, 'CRLF');
    assert.deepEqual(f.line_ending_counts, { lf: 0, crlf: 2, cr: 0 });
    assert.equal(f.final_newline, true);
    const be = iconv.encode('a\nb', 'utf-16be', { addBOM: true });
    const g = detectFormat(be);
    assert.equal(g.charset, 'utf-16be');
    assert.equal(g.line_ending, 'LF');
    assert.equal(g.final_newline, false);
  });

  it('NUL bytes mean binary; invalid UTF-8 text is ISO-8859-1 (every byte round-trips)', () => {
    assert.equal(detectCharset(Buffer.from([0x41, 0x00, 0x42]), true).charset, 'binary');
    assert.equal(detectCharset(Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'), true).charset, 'iso-8859-1');
    assert.equal(detectCharset(b('名前 = "Bäcker €"\n'), true).charset, 'utf-8');
    // a sniff window may cut a multi-byte character at its end
    const cut = b('€€€').subarray(0, 7);
    assert.equal(detectCharset(cut, false).charset, 'utf-8');
  });

  it('facts: source extensions are text types; images are recognised by content', () => {
    assert.equal(factsFromBytes('src/a.ts', b('export const a = 1;\n')).mime, 'text/typescript');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const f = factsFromBytes('picture.txt', png);
    assert.equal(f.kind, 'image');
    assert.equal(f.mime, 'image/png');
    assert.equal(factsFromBytes('x.bin', Buffer.from([0, 1, 2, 3])).mime, 'application/octet-stream');
  });

  it('facts: total lines ignore a final terminator', () => {
    assert.equal(factsFromBytes('a', b('a\nb\n')).totalLines, 2);
    assert.equal(factsFromBytes('a', b('a\nb')).totalLines, 2);
    assert.equal(factsFromBytes('a', b('')).totalLines, 0);
    assert.equal(factsFromBytes('a', b('\n')).totalLines, 1);
  });
});
