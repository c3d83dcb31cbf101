import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declaresMcpApps } from './apps.js';
import { ToolCatalog } from './tool-catalog.js';
import { makePrincipal } from './principals.js';
import { desktopViewUri, parseDesktopViewUri, PROFILES } from '@holdfast/shared/tools';

describe('MCP Apps clients (issue 16 §6)', () => {
  it('recognises the UI extension with HTML views only', () => {
    assert.equal(declaresMcpApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } }), true);
    assert.equal(declaresMcpApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/x-other'] } } }), false);
    assert.equal(declaresMcpApps({ extensions: {} }), false);
    assert.equal(declaresMcpApps(undefined), false);
  });

  it('lists desktop_open with the ui:// resource to such clients only; the rest of the listing is the same', () => {
    const catalog = new ToolCatalog();
    const owner = makePrincipal('owner', [...PROFILES.full], null);
    const plain = catalog.listFor(owner);
    const apps = catalog.listFor(owner, true);
    assert.equal(plain.find((t) => t.name === 'desktop_open')!._meta, undefined);
    assert.deepEqual(apps.find((t) => t.name === 'desktop_open')!._meta, { ui: { resourceUri: 'ui://holdfast/desktop.html' } });
    assert.deepEqual(apps.map((t) => t.name), plain.map((t) => t.name));
  });

  it('names the view resource the app reads', () => {
    assert.equal(desktopViewUri('rs_A1', 'view_B2'), 'holdfast://remote-sessions/rs_A1/desktop-views/view_B2');
    assert.deepEqual(parseDesktopViewUri('holdfast://remote-sessions/rs_A1/desktop-views/view_B2'), { remote_session_id: 'rs_A1', view_id: 'view_B2' });
    assert.equal(parseDesktopViewUri('holdfast://remote-sessions/rs_A1/desktop-views/../x'), null);
  });
});
