import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { desEncryptBlock, vncAuthResponse } from './des.js';

const hex = (s: string): Buffer => Buffer.from(s, 'hex');

describe('DES for VNC authentication', () => {
  it('matches published DES test vectors', () => {
    // The worked example of J. Orlin Grabbe, "The DES Algorithm Illustrated".
    assert.equal(desEncryptBlock(hex('133457799BBCDFF1'), hex('0123456789ABCDEF')).toString('hex'), '85e813540f0ab405');
    // NIST SP 800-17 style vectors (key, plaintext → ciphertext).
    assert.equal(desEncryptBlock(hex('0E329232EA6D0D73'), hex('8787878787878787')).toString('hex'), '0000000000000000');
    assert.equal(desEncryptBlock(hex('0101010101010101'), hex('95F8A5E5DD31D900')).toString('hex'), '8000000000000000');
  });

  it('keys VNC responses with the bit-reversed, zero-padded, 8-byte-truncated password', () => {
    const challenge = hex('00112233445566778899aabbccddeeff');
    const r = vncAuthResponse(challenge, 'pw');
    assert.equal(r.length, 16);
    // 'p' = 0x70 → 0x0e, 'w' = 0x77 → 0xee, then zeros.
    const key = hex('0eee000000000000');
    assert.deepEqual(r, Buffer.concat([desEncryptBlock(key, challenge.subarray(0, 8)), desEncryptBlock(key, challenge.subarray(8))]));
    assert.deepEqual(vncAuthResponse(challenge, 'password-longer'), vncAuthResponse(challenge, 'password'), 'only 8 bytes count');
    assert.throws(() => vncAuthResponse(hex('00'), 'x'), /16 bytes/);
  });
});
