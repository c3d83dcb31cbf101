import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { openSession, toolCaller } from './_harness/tools.js';

/**
 * Relative paths are judged where the shell really is (issue 5 policy): the workspace here sits
 * directly under the daemon's $HOME, so `rm -rf ..` is the home folder — refused by the built-in
 * floor — and after a `cd sub`, so is `rm -rf ../..`. (Nothing destructive can run: `if false`.)
 */
describe('execute: relative paths are judged against the shell\'s current directory', () => {
  const h = new TestHome();
  let run: (args: Record<string, unknown>) => ReturnType<ReturnType<typeof toolCaller>>;
  before(async () => {
    mkdirSync(join(h.workspace, 'sub'));
    await h.startDaemon({ HOME: h.home });
    const c = h.client();
    const call = toolCaller(c);
    const rs = await openSession(c);
    run = (args) => call('execute', { remote_session_id: rs, ...args });
    const warm = await run({ command: 'true', yield_time_ms: 30_000 });
    assert.equal(warm.env.data?.exit_code, 0, warm.text);
  });
  after(() => h.cleanup());

  it('`rm -rf ..` from a workspace under $HOME is the home folder: denied', async () => {
    const r = await run({ command: 'if false; then rm -rf ..; fi' });
    assert.equal(r.env.status, 'failed', r.text);
    assert.equal(r.env.error!.code, 'POLICY_DENIED');
  });

  it('after `cd sub`, `rm -rf ../..` is judged from sub: denied; `rm -rf ../sub-gone` is not the floor', async () => {
    const cd = await run({ command: 'cd sub' });
    assert.equal(cd.env.data.exit_code, 0, cd.text);
    const r = await run({ command: 'if false; then rm -rf ../..; fi' });
    assert.equal(r.env.status, 'failed', r.text);
    assert.equal(r.env.error!.code, 'POLICY_DENIED');
    const ok = await run({ command: 'if false; then rm -rf ../sub-gone; fi' });
    assert.equal(ok.env.status, 'succeeded', ok.text);
  });
});
