import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import { jsonBytes } from './json-size.js';

/**
 * Bounded in-memory SSE event store of one 2025-era transport session (MCP 2025-11-25
 * resumability: a client reconnects with `GET` + `Last-Event-ID` and gets that stream's later
 * messages). Event ids are `<streamId>.<sequence>`. The newest `maxEvents` events, and at most
 * `maxBytes` of their JSON, are kept; older ones are dropped (a client that reconnects later than
 * that misses them, as it would after an adapter restart). Lives and dies with its session: the
 * adapter keeps no durable state (DESIGN §1).
 */
export class BoundedEventStore implements EventStore {
  private readonly events: { id: EventId; streamId: StreamId; message: JSONRPCMessage; bytes: number }[] = [];
  private readonly streamOf = new Map<EventId, StreamId>();
  private seq = 0;
  private bytes = 0;

  constructor(
    private readonly maxEvents: number,
    private readonly maxBytes: number,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = `${streamId}.${++this.seq}`;
    const bytes = jsonBytes(message);
    this.events.push({ id, streamId, message, bytes });
    this.streamOf.set(id, streamId);
    this.bytes += bytes;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) {
      const old = this.events.shift()!;
      this.streamOf.delete(old.id);
      this.bytes -= old.bytes;
    }
    return id;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    const known = this.streamOf.get(eventId);
    if (known !== undefined) return known;
    // An id that fell out of the window still names its stream: replay what remains of it.
    const dot = eventId.lastIndexOf('.');
    return dot > 0 && /^\d+$/.test(eventId.slice(dot + 1)) ? eventId.slice(0, dot) : undefined;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const streamId = await this.getStreamIdForEventId(lastEventId);
    if (streamId === undefined) return '';
    const after = Number(lastEventId.slice(lastEventId.lastIndexOf('.') + 1));
    for (const e of [...this.events]) {
      if (e.streamId !== streamId) continue;
      if (Number(e.id.slice(e.id.lastIndexOf('.') + 1)) <= after) continue;
      await send(e.id, e.message);
    }
    return streamId;
  }

  /** Number of events held (for tests). */
  get size(): number {
    return this.events.length;
  }
}
