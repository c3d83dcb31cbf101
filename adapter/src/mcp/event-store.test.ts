import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { BoundedEventStore } from './event-store.js';
import { jsonBytes, markImmutable } from './json-size.js';

const msg = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });

describe('BoundedEventStore (2025-11-25 resumability)', () => {
  it('replays only the later events of the same stream, in order', async () => {
    const s = new BoundedEventStore(100, 1 << 20);
    const a1 = await s.storeEvent('A', msg(1));
    await s.storeEvent('B', msg(2));
    await s.storeEvent('A', msg(3));
    await s.storeEvent('A', msg(4));
    const sent: [string, JSONRPCMessage][] = [];
    const stream = await s.replayEventsAfter(a1, { send: async (id, m) => void sent.push([id, m]) });
    assert.equal(stream, 'A');
    assert.deepEqual(sent.map(([, m]) => (m as { id: number }).id), [3, 4]);
    assert.equal(await s.getStreamIdForEventId(a1), 'A');
  });

  it('keeps at most maxEvents and maxBytes, dropping the oldest', async () => {
    const s = new BoundedEventStore(3, 1 << 20);
    const first = await s.storeEvent('A', msg(1));
    for (let i = 2; i <= 5; i++) await s.storeEvent('A', msg(i));
    assert.equal(s.size, 3);
    const sent: number[] = [];
    // An id that fell out of the window still names its stream: what remains is replayed.
    await s.replayEventsAfter(first, { send: async (_id, m) => void sent.push((m as { id: number }).id) });
    assert.deepEqual(sent, [3, 4, 5]);
    const small = new BoundedEventStore(100, 60);
    for (let i = 0; i < 10; i++) await small.storeEvent('A', msg(i));
    assert.ok(small.size < 10 && small.size >= 1);
  });

  it('does not name a stream for a foreign event id', async () => {
    const s = new BoundedEventStore(10, 1000);
    assert.equal(await s.getStreamIdForEventId('garbage'), undefined);
    assert.equal(await s.replayEventsAfter('garbage', { send: async () => undefined }), '');
  });

  it('measures a message as JSON.stringify would (escapes and short strings\' multi-byte characters aside), and a value marked immutable only once (issue 10)', () => {
    const tools = [{ name: 'read', description: 'a "quoted"\nline é', inputSchema: { type: 'object', properties: { n: { type: ['number', 'null'] } } } }];
    const values: unknown[] = [null, 1, 'x', [], {}, [1, 'a', null, undefined], { a: undefined, b: [undefined], c: { d: { e: { f: [1, { g: 'h' }] } } } }, { jsonrpc: '2.0', id: 7, result: { tools } }, { toJSON: () => 'z' }, { d: new Date(0) }];
    for (const v of values) {
      const exact = Buffer.byteLength(JSON.stringify(v));
      const json = JSON.stringify(v);
      const escapes = (json.match(/\\/g) ?? []).length;
      const multiByte = Buffer.byteLength(json) - json.length;
      assert.ok(jsonBytes(v) <= exact && jsonBytes(v) >= exact - escapes - multiByte, `${json}: ${jsonBytes(v)} of ${exact}`);
    }
    const list = [{ name: 'x' }];
    markImmutable(list);
    const before = jsonBytes({ result: { tools: list } });
    list.push({ name: 'a longer name' }); // never done to a marked value: shows the size is remembered
    assert.equal(jsonBytes({ result: { tools: list } }), before);
  });
});
