import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { artifactPage } from './artifact-page.js';

const reader = (b: Buffer) => (from: number, to: number): Buffer => b.subarray(Math.max(0, from), Math.min(b.length, to));

/** Reads a whole artifact page by page with `limit`; returns the texts and page starts. */
function pages(bytes: Buffer, encoding: string, bom: boolean, limit: number): { texts: string[]; starts: number[] } {
  const texts: string[] = [];
  const starts: number[] = [];
  let at: number | null = 0;
  while (at !== null) {
    const p = artifactPage(encoding, bom, bytes.length, at, limit, reader(bytes));
    starts.push(p.source_offset);
    texts.push(p.text ?? p.base64!);
    assert.ok(p.next_source_offset === null || p.next_source_offset > at, 'pages move forward');
    at = p.next_source_offset;
  }
  return { texts, starts };
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TEXT = 'a😀b漢ñ𝄞\r\nz'.repeat(40);

describe('artifact pages (issue 11)', () => {
  for (const [encoding, bomBytes] of [['utf-16le', [0xff, 0xfe]], ['utf-16be', [0xfe, 0xff]], ['utf-8', [0xef, 0xbb, 0xbf]], ['utf-8', []]] as const) {
    it(`${encoding}${bomBytes.length ? ' with BOM' : ''}: every limit gives whole characters that join to the text`, () => {
      const body = encoding === 'utf-16be' ? Buffer.from(TEXT, 'utf16le').swap16() : Buffer.from(TEXT, encoding === 'utf-8' ? 'utf8' : 'utf16le');
      const bytes = Buffer.concat([Buffer.from(bomBytes), body]);
      for (const limit of [1, 2, 3, 5, 7, 64, 1000]) {
        const { texts } = pages(bytes, encoding, bomBytes.length > 0, limit);
        for (const t of texts) assert.ok(!LONE.test(t), `limit ${limit}: no half surrogate pair`);
        assert.equal(texts.join(''), TEXT, `limit ${limit}`);
      }
    });
  }

  it('an offset inside a character moves back to its start', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('x😀y', 'utf16le')]);
    const p = artifactPage('utf-16le', true, bytes.length, 5, 100, reader(bytes)); // inside the surrogate pair
    assert.equal(p.source_offset, 4);
    assert.equal(p.text, '😀y');
  });

  it('binary and ISO-8859-1 go out as base64 of exactly the bytes asked for', () => {
    const bytes = Buffer.from([0, 1, 2, 3, 250, 251]);
    const p = artifactPage('binary', false, bytes.length, 1, 3, reader(bytes));
    assert.deepEqual([p.delivery_encoding, Buffer.from(p.base64!, 'base64')], ['base64', bytes.subarray(1, 4)]);
    assert.equal(p.next_source_offset, 4);
    assert.equal(artifactPage('iso-8859-1', false, 2, 0, 10, reader(Buffer.from([0xe9, 0x41]))).delivery_encoding, 'base64');
  });
});
