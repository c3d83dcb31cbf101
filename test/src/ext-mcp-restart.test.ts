import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isAlive, TestHome } from './_harness/home.js';
import { envelopeOf, openSession, toolCaller, type ToolReply } from './_harness/tools.js';

/**
 * Upstream MCP servers outlive the daemon (issue 13, DESIGN §5.1): after `holdfast
 * restart-daemon` and after `kill -9` of the daemon, the session's upstream servers keep their
 * pid and their state — an entity the memory server (`@modelcontextprotocol/server-memory`)
 * stored, and the in-memory tool list the test server changed — and calls go on in the same
 * initialized connection.
 */
const require = createRequire(import.meta.url);
const MEMORY = join(dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');
const TEST_SERVER = join(dirname(fileURLToPath(import.meta.url)), '_harness', 'upstream-test-server.js');

describe('upstream MCP servers across daemon restarts (issue 13)', () => {
  const h = new TestHome({
    mcp_servers: {
      memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '${HF_MEMORY_FILE}' } },
      testsrv: { command: process.execPath, args: [TEST_SERVER] },
    },
  });
  const env = { HF_MEMORY_FILE: join(h.home, 'memory.jsonl') };
  let rs: string;
  const mcp = async (args: Record<string, unknown>): Promise<ToolReply> => toolCaller(h.client(), 'p', ['mcp_tool'])('mcp_tool', { remote_session_id: rs, ...args });
  const pidOf = (r: ToolReply): number => envelopeOf(r.raw).data.upstream_pid as number;

  before(async () => {
    await h.startDaemon(env);
    rs = await openSession(h.client());
  });
  after(() => h.cleanup());

  it('restart-daemon and kill -9 of the daemon keep the upstream pid and its state', async () => {
    const create = { action: 'call', server: 'memory', tool: 'create_entities', arguments: { entities: [{ name: 'holdfast', entityType: 'project', observations: ['survives restarts'] }] } };
    assert.equal((await mcp(create)).env.status, 'waiting_confirmation');
    const created = await mcp({ ...create, user_confirmed: true });
    assert.equal(created.raw.isError, false, created.text);
    const memPid = pidOf(created);
    const mutated = await mcp({ action: 'call', server: 'testsrv', tool: 'mutate', arguments: {} });
    assert.equal(mutated.raw.isError, false, mutated.text);
    const testPid = pidOf(mutated);

    const check = async (when: string): Promise<void> => {
      const graph = await mcp({ action: 'call', server: 'memory', tool: 'read_graph', arguments: {} });
      assert.equal(graph.raw.isError, false, `${when}: ${graph.text}`);
      assert.equal(pidOf(graph), memPid, `${when}: same memory server process`);
      assert.match(graph.text, /survives restarts/, `${when}: the stored entity is still there`);
      const d = await mcp({ action: 'describe', server: 'testsrv', tool: 'evolving' });
      assert.equal(d.env.data.input_schema.properties.value.type, 'number', `${when}: the test server kept its in-memory tool list`);
      const e = await mcp({ action: 'call', server: 'testsrv', tool: 'get_env', arguments: { name: 'HOLDFAST_SESSION' } });
      assert.equal(e.raw.structuredContent?.pid, testPid, `${when}: same test server process`);
      assert.equal(e.raw.structuredContent?.value, rs, 'upstreams carry the session marker');
    };

    const daemonBefore = h.daemonPid();
    const restart = await h.cli(['restart-daemon']);
    assert.equal(restart.code, 0, restart.stderr);
    assert.notEqual(h.daemonPid(), daemonBefore);
    await check('after restart-daemon');

    await h.kill9Daemon();
    assert.ok(isAlive(memPid) && isAlive(testPid), 'upstreams live while no daemon runs');
    await h.startDaemon(env);
    await check('after kill -9 of the daemon');
  });
});
