import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WireLimits } from '@holdfast/shared/constants';
import { encodeFrame, FrameDecoder } from '@holdfast/shared/wire';
import { pollUntil, TestHome } from './_harness/home.js';

function rawConnection(path: string) {
  const s = connect({ path });
  const dec = new FrameDecoder();
  const frames: unknown[] = [];
  let closed = false;
  s.on('data', (d: Buffer) => frames.push(...dec.push(d)));
  s.on('close', () => (closed = true));
  s.on('error', () => undefined);
  return { s, frames, isClosed: () => closed };
}

describe('the control socket survives bad frames (DESIGN §3)', () => {
  const h = new TestHome();
  before(() => h.startDaemon());
  after(() => h.cleanup());

  it('a garbage frame gets one err frame and closes only that connection', async () => {
    const good = h.client();
    await good.call('daemon.status', {});
    const bad = rawConnection(h.layout.daemonSocket);
    const junk = Buffer.from([0xc1, 0xc1, 0xc1]);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(junk.length);
    bad.s.write(Buffer.concat([header, junk]));
    await pollUntil('the bad connection to close', () => bad.isClosed(), 5000);
    assert.equal((bad.frames[0] as { k: string; e: { code: string } }).e.code, 'BAD_FRAME');
    const st = await good.call('daemon.status', {});
    assert.equal(typeof st.pid, 'number');
  });

  it('an oversize frame header is refused with FRAME_TOO_LARGE before any payload', async () => {
    const bad = rawConnection(h.layout.daemonSocket);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(WireLimits.MAX_CONTROL_FRAME_BYTES + 1);
    bad.s.write(header);
    await pollUntil('the oversize connection to close', () => bad.isClosed(), 5000);
    assert.equal((bad.frames[0] as { e: { code: string } }).e.code, 'FRAME_TOO_LARGE');
    const st = await h.client().call('daemon.status', {});
    assert.equal(typeof st.pid, 'number');
  });

  it('a wrong protocol version in hello is refused with PROTOCOL_VERSION', async () => {
    const bad = rawConnection(h.layout.daemonSocket);
    bad.s.write(encodeFrame({ k: 'hello', proto: 999, role: 'cli', build: 'x', pid: 1, features: [] }));
    await pollUntil('refusal', () => bad.isClosed(), 5000);
    assert.equal((bad.frames[0] as { e: { code: string } }).e.code, 'PROTOCOL_VERSION');
  });

  it('requests before hello are refused', async () => {
    const bad = rawConnection(h.layout.daemonSocket);
    bad.s.write(encodeFrame({ k: 'req', id: 1, m: 'daemon.status', p: {} }));
    await pollUntil('refusal', () => bad.isClosed(), 5000);
    assert.equal((bad.frames[0] as { e: { code: string } }).e.code, 'BAD_FRAME');
  });
});
