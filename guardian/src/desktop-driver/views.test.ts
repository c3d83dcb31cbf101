import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ViewStore } from './views.js';

describe('views (issue 15 desktop_open)', () => {
  it('waits until the person connects or closes a view, and times out with wait_timed_out', async () => {
    const s = new ViewStore();
    const v = s.open('lab');
    assert.equal(v.state, 'waiting');
    assert.equal((await s.wait(v.view_id, 10)).wait_timed_out, true);
    const waiting = s.wait(v.view_id, 20_000);
    s.bind(v.view_id, 'ds_x');
    const done = await waiting;
    assert.deepEqual([done.state, done.desktop_session_id, done.wait_timed_out], ['connected', 'ds_x', false]);
    const w = s.open(null);
    const pending = s.wait(w.view_id, 20_000);
    s.close(w.view_id);
    assert.equal((await pending).state, 'closed');
    assert.throws(() => s.bind(w.view_id, 'ds_y'), /was closed/);
    assert.throws(() => s.get('view_unknown'), (e: { code: string }) => e.code === 'DESKTOP_NOT_FOUND');
  });

  it('keeps at most 32 views, dropping unused ones after 30 minutes', () => {
    let now = 0;
    const s = new ViewStore(() => now);
    for (let i = 0; i < 32; i++) s.open(null);
    assert.throws(() => s.open(null), (e: { code: string }) => e.code === 'LIMIT_EXCEEDED');
    now = 30 * 60_000 + 1;
    assert.equal(s.open(null).state, 'waiting');
    assert.equal(s.list().length, 1);
  });
});

describe('views presented by the panel (issue 16)', () => {
  it('an MCP Apps view is pending, confirmed when the app reports ready, else not_confirmed — which answers a waiting desktop_get_session', async () => {
    const s = new ViewStore(Date.now, 40);
    const shown = s.open(null, 'apps');
    assert.equal(shown.app_state, 'pending');
    assert.equal(s.confirmApp(shown.view_id).app_state, 'confirmed');
    const lost = s.open(null, 'apps');
    const started = Date.now();
    const waited = await s.wait(lost.view_id, 20_000);
    assert.ok(Date.now() - started < 5000, 'the wait ends when the view turns not_confirmed');
    assert.deepEqual([waited.state, waited.app_state, waited.wait_timed_out], ['waiting', 'not_confirmed', false]);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(s.get(shown.view_id).app_state, 'confirmed', 'a confirmed view stays confirmed');
  });

  it('records the page URL and whether a browser opened; views of other modes have no app state', () => {
    const s = new ViewStore();
    const v = s.open('lab', 'browser');
    assert.deepEqual([v.panel, v.app_state, v.browser_opened], ['browser', null, null]);
    const p = s.present(v.view_id, { panel_url: 'http://127.0.0.1:1/view/x', browser_opened: true });
    assert.deepEqual([p.panel_url, p.browser_opened], ['http://127.0.0.1:1/view/x', true]);
  });
});
