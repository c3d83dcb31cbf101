import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolvePanelMode } from './desktop-panel.js';

describe('panel mode (issue 16 §6, --panel)', () => {
  const display = { DISPLAY: ':0' };
  it('auto: an MCP Apps view for clients that render them, else a browser with a display, the terminal viewer with a terminal, else off', () => {
    assert.equal(resolvePanelMode('auto', { apps: true, terminal: true }, display), 'apps');
    assert.equal(resolvePanelMode('auto', { apps: false, terminal: true }, display), 'browser');
    assert.equal(resolvePanelMode('auto', { apps: false, terminal: true }, { WAYLAND_DISPLAY: 'wayland-0' }), 'browser');
    assert.equal(resolvePanelMode('auto', { apps: false, terminal: true }, {}), 'terminal');
    assert.equal(resolvePanelMode('auto', { apps: false, terminal: false }, {}), 'off');
    assert.equal(resolvePanelMode('auto', undefined, {}), 'off');
  });

  it('apps falls back as auto does for a client without the extension; browser, terminal and off are taken as set', () => {
    assert.equal(resolvePanelMode('apps', { apps: true, terminal: false }, {}), 'apps');
    assert.equal(resolvePanelMode('apps', { apps: false, terminal: false }, display), 'browser');
    assert.equal(resolvePanelMode('browser', { apps: true, terminal: false }, {}), 'browser');
    assert.equal(resolvePanelMode('terminal', { apps: true, terminal: false }, display), 'terminal');
    assert.equal(resolvePanelMode('off', { apps: true, terminal: true }, display), 'off');
  });
});
