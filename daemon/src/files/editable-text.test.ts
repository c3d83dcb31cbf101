import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { detectCharset } from './charset.js';
import { logicalText, openEditable, rebuild } from './editable-text.js';
import { applyLinePatches, applyReplacements } from './text-operations.js';

const sha = (x: Buffer): string => createHash('sha256').update(x).digest('hex');

function edit(bytes: Buffer, fn: (text: string, lines: string[]) => string): Buffer {
  const t = openEditable(bytes, detectCharset(bytes, true));
  return rebuild(t, fn(logicalText(t), t.texts)).bytes;
}

const replace = (bytes: Buffer, match: string, replacement: string): Buffer => edit(bytes, (text) => applyReplacements(text, [{ match, replacement }], 'f'));

describe('logical edits keep the format byte for byte (issue 4; field failures #10, #13)', () => {
  it('a CRLF file edited stays CRLF', () => {
    assert.equal(replace(Buffer.from('a\r\nb\r\nc\r\n'), 'b', 'B').toString('latin1'), 'a\r\nB\r\nc\r\n');
  });

  it('a BOM stays', () => {
    const out = replace(Buffer.from('\ufeffx\ny\n'), 'y', 'z');
    assert.deepEqual([...out.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.equal(out.subarray(3).toString(), 'x\nz\n');
  });

  it('mixed endings stay per line, and inserted lines take the ending of the line they replace', () => {
    const src = Buffer.from('one\r\ntwo\nthree\rfour\n');
    assert.equal(replace(src, 'two', 'TWO').toString('latin1'), 'one\r\nTWO\nthree\rfour\n');
    assert.equal(replace(src, 'one', 'one\nuno').toString('latin1'), 'one\r\nuno\r\ntwo\nthree\rfour\n');
    assert.equal(replace(src, 'three', 'drei').toString('latin1'), 'one\r\ntwo\ndrei\rfour\n');
  });

  it('a missing final newline stays missing; a present one stays present', () => {
    assert.equal(replace(Buffer.from('a\nb'), 'b', 'c').toString(), 'a\nc');
    assert.equal(edit(Buffer.from('a\nb'), () => 'x\ny\nz\n').toString(), 'x\ny\nz');
    assert.equal(edit(Buffer.from('a\nb\n'), () => 'x\ny').toString(), 'x\ny\n');
    // an empty file takes the new text's own final newline
    assert.equal(edit(Buffer.from(''), () => 'x\n').toString(), 'x\n');
  });

  it('a UTF-16LE BOM file round-trips in its charset', () => {
    const src = iconv.encode('héllo\r\nwörld\r\n', 'utf-16le', { addBOM: true });
    const out = replace(src, 'wörld', 'Welt');
    assert.deepEqual(out, iconv.encode('héllo\r\nWelt\r\n', 'utf-16le', { addBOM: true }));
    const be = iconv.encode('a\nb\n', 'utf-16be', { addBOM: true });
    assert.deepEqual(replace(be, 'b', 'ß'), iconv.encode('a\nß\n', 'utf-16be', { addBOM: true }));
  });

  it('editing line 2 leaves a CJK/umlaut/euro line 1 byte-identical', () => {
    const line1 = Buffer.from('名前 = "Bäcker €"\n');
    const src = Buffer.concat([line1, Buffer.from('price = 1\n')]);
    const out = replace(src, 'price = 1', 'price = 2');
    assert.equal(sha(out.subarray(0, line1.length)), sha(line1));
    assert.equal(out.subarray(line1.length).toString(), 'price = 2\n');
  });

  it('an ISO-8859-1 file keeps its bytes and refuses characters it cannot hold', () => {
    const src = Buffer.from('caf\xe9\nna\xefve\n', 'latin1');
    assert.deepEqual(replace(src, 'naïve', 'naive'), Buffer.from('caf\xe9\nnaive\n', 'latin1'));
    assert.throws(() => replace(src, 'naïve', '€'), /ISO-8859-1/);
  });

  it('a Markdown table with double spaces is matched exactly, and a near miss is refused with a char diff', () => {
    const table = '| a  | b  |\n|----|----|\n| 1  | 2  |\n';
    assert.equal(replace(Buffer.from(table), '| 1  | 2  |', '| 1  | 3  |').toString(), '| a  | b  |\n|----|----|\n| 1  | 3  |\n');
    assert.throws(
      () => replace(Buffer.from(table), '| 1 | 2 |', '| 1 | 3 |'),
      (err: Error & { code?: string; details?: { char_diff?: string; candidates?: { line: number }[] } }) => {
        assert.equal(err.code, 'MATCH_NOT_FOUND');
        assert.equal(err.details?.candidates?.[0]?.line, 3);
        assert.match(err.details?.char_diff ?? '', /\{\+ \+\}/);
        return true;
      },
    );
  });

  it('a source line with a literal \\n escape is matched and replaced as written', () => {
    const src = Buffer.from('const s = "a\\nb";\nconst t = 1;\n');
    assert.equal(replace(src, 'const s = "a\\nb";', 'const s = "a\\nc";').toString(), 'const s = "a\\nc";\nconst t = 1;\n');
  });

  it('ambiguous matches list their lines', () => {
    assert.throws(() => replace(Buffer.from('x\ny\nx\n'), 'x', 'z'), (err: Error & { code?: string; details?: { lines?: number[] } }) => {
      assert.equal(err.code, 'MATCH_AMBIGUOUS');
      assert.deepEqual(err.details?.lines, [1, 3]);
      return true;
    });
  });

  it('line patches replace, insert and delete against the base lines', () => {
    const lines = ['1', '2', '3', '4'];
    assert.deepEqual(applyLinePatches(lines, [{ start_line: 2, end_line: 3, content: 'b\nc\nd\n' }], 'f'), ['1', 'b', 'c', 'd', '4']);
    assert.deepEqual(applyLinePatches(lines, [{ start_line: 1, end_line: 0, content: '0' }], 'f'), ['0', '1', '2', '3', '4']);
    assert.deepEqual(applyLinePatches(lines, [{ start_line: 5, end_line: 4, content: '5' }, { start_line: 2, end_line: 2, content: '' }], 'f'), ['1', '3', '4', '5']);
    assert.throws(() => applyLinePatches(lines, [{ start_line: 2, end_line: 3, content: '' }, { start_line: 3, end_line: 3, content: '' }], 'f'), /overlaps/);
    assert.throws(() => applyLinePatches(lines, [{ start_line: 7, end_line: 7, content: '' }], 'f'), /outside/);
  });

  it('property: untouched lines stay byte-identical whatever the endings', () => {
    const eol = fc.constantFrom('\n', '\r\n', '\r');
    const line = fc.stringMatching(/^[a-zé€名 ]{0,12}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(line, eol), { minLength: 2, maxLength: 30 }), fc.boolean(), fc.nat(), line, (rows, finalNl, pick, newText) => {
        const bytes = Buffer.from(rows.map(([l, e], i) => l + (i < rows.length - 1 || finalNl ? e : '')).join(''));
        const t = openEditable(bytes, detectCharset(bytes, true));
        if (t.texts.length < 2) return;
        const k = pick % t.texts.length;
        const lines = [...t.texts];
        lines[k] = `${newText}#`;
        const out = rebuild(t, lines.join('\n') + (t.finalNewline ? '\n' : ''));
        const t2 = openEditable(out.bytes, detectCharset(out.bytes, true));
        assert.equal(t2.texts.length, t.texts.length);
        for (let i = 0; i < t.texts.length; i++) {
          if (i === k) continue;
          const a = t.records[i]!;
          const b = t2.records[i]!;
          assert.deepEqual(out.bytes.subarray(b.start, b.next), bytes.subarray(a.start, a.next), `line ${i} changed`);
        }
        assert.equal(t2.eols[k], t.eols[k]);
        assert.equal(t2.finalNewline, t.finalNewline);
      }),
      { numRuns: 300 },
    );
  });
});
