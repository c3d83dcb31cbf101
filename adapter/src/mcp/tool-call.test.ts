import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { CallContext, ToolCallResult } from '@holdfast/shared/control';
import { ForwardConstants } from './constants.js';
import type { Principal } from './principals.js';
import { conversationOf, ToolForwarder, type ToolBackend } from './tool-call.js';
import { ToolCatalog } from './tool-catalog.js';

const owner: Principal = { name: 'owner', allowedTools: ['execute', 'workspace'], allowed: new Set(['execute', 'workspace']), tokenDigest: null };

/** A backend standing in for the daemon: records the context and answers when told to. */
function backend(): { b: ToolBackend; contexts: CallContext[]; finish: () => void } {
  const contexts: CallContext[] = [];
  let release = (): void => undefined;
  const result: ToolCallResult = {
    content: [{ type: 'text', text: 'ok' }],
    structuredContent: { status: 'succeeded', type: 'x', context: {}, data: {}, error: null, hints: {}, actions: [] },
    isError: false,
  };
  return {
    contexts,
    finish: () => release(),
    b: {
      callTool: (_tool, _args, context) => {
        contexts.push(context);
        return new Promise((r) => (release = () => r(result)));
      },
    },
  };
}

describe('the conversation of a call (issue 8)', () => {
  it('is the header, else the transport session, else the stdio connection, else none', () => {
    assert.equal(conversationOf({ era: 'legacy', mcpSessionId: 'sess-1', conversationHeader: ' conv-7 ' }), 'conv-7');
    assert.equal(conversationOf({ era: 'legacy', mcpSessionId: 'sess-1' }), 'sess-1');
    const stdio = conversationOf({ era: 'stdio' });
    assert.match(String(stdio), /^stdio-[0-9a-f-]{36}$/);
    assert.equal(conversationOf({ era: 'stdio' }), stdio, 'one id per stdio connection (process)');
    assert.equal(conversationOf({ era: 'modern' }), undefined);
    assert.equal(conversationOf({ era: 'modern', conversationHeader: 'x'.repeat(300) })!.length, 200);
  });
});

describe('long calls: progress or a capped wait (issue 8)', () => {
  const opts = { affinity: 'workspace' as const, deadlineMs: 130_000, requestTimeoutMs: 120_000 };

  it('without a progress token every wait of the call is capped at 50 s', async () => {
    const { b, contexts, finish } = backend();
    const f = new ToolForwarder(new ToolCatalog(), b, null, opts);
    const call = f.call('execute', { remote_session_id: 'rs_x', command: 'sleep 90', yield_time_ms: 90_000 }, { principal: owner, era: 'legacy', requestId: '1', signal: new AbortController().signal });
    await new Promise((r) => setImmediate(r));
    finish();
    await call;
    assert.equal(contexts[0]!.wait_cap_ms, ForwardConstants.NO_PROGRESS_WAIT_CAP_MS);
  });

  it('with a progress token the wait is not capped and progress goes out every 10 s, increasing', async () => {
    mock.timers.enable({ apis: ['setInterval', 'Date'] });
    try {
      const { b, contexts, finish } = backend();
      const f = new ToolForwarder(new ToolCatalog(), b, null, opts);
      const sent: { progress: number; total?: number; message: string }[] = [];
      const call = f.call('execute', { remote_session_id: 'rs_x', command: 'sleep 90', yield_time_ms: 90_000 }, {
        principal: owner,
        era: 'modern',
        requestId: '2',
        signal: new AbortController().signal,
        onProgress: (u) => {
          sent.push(u as { progress: number; total?: number; message: string });
        },
      });
      await new Promise((r) => setImmediate(r));
      assert.equal(contexts[0]!.wait_cap_ms, undefined);
      for (let i = 0; i < 3; i++) mock.timers.tick(ForwardConstants.PROGRESS_INTERVAL_MS);
      finish();
      await call;
      mock.timers.tick(ForwardConstants.PROGRESS_INTERVAL_MS * 3);
      assert.equal(sent.length, 3, 'three intervals, none after the answer');
      assert.equal(sent[0]!.total, 90);
      for (let i = 1; i < sent.length; i++) assert.ok(sent[i]!.progress > sent[i - 1]!.progress);
      assert.match(sent[0]!.message, /execute still working/);
    } finally {
      mock.timers.reset();
    }
  });
});
