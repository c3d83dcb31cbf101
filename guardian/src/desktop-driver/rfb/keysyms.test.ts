import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KEY_NAMES, keysymForName, keysymsForText } from './keysyms.js';

describe('keysyms', () => {
  it('maps every key name of issue 15, case-insensitively, letters to their lowercase key', () => {
    assert.equal(keysymForName('A'), 0x61);
    assert.equal(keysymForName('z'), 0x7a);
    assert.equal(keysymForName('7'), 0x37);
    assert.equal(keysymForName('F1'), 0xffbe);
    assert.equal(keysymForName('F12'), 0xffc9);
    assert.equal(keysymForName('ctrl'), 0xffe3);
    assert.equal(keysymForName('PAGE_DOWN'), 0xff56);
    assert.equal(keysymForName('F13'), null);
    assert.equal(keysymForName('HYPER'), null);
    for (const n of ['CTRL', 'ALT', 'SHIFT', 'META', 'ENTER', 'ESC', 'TAB', 'BACKSPACE', 'DELETE', 'UP', 'DOWN', 'LEFT', 'RIGHT', 'HOME', 'END', 'PAGE_UP', 'PAGE_DOWN']) {
      assert.ok(KEY_NAMES.includes(n) && keysymForName(n) !== null, n);
    }
  });

  it('types Latin-1 as itself, other Unicode as 0x1000000 + code point, line ends as Return', () => {
    assert.deepEqual(keysymsForText('aÉ'), [0x61, 0xc9]);
    assert.deepEqual(keysymsForText('名'), [0x1000000 + 0x540d]);
    assert.deepEqual(keysymsForText('😀'), [0x1000000 + 0x1f600], 'an astral character is one key');
    assert.deepEqual(keysymsForText('a\r\nb\tc'), [0x61, 0xff0d, 0x62, 0xff09, 0x63]);
  });
});
