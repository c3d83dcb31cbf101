import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declaresMcpApps } from './apps.js';
import { ToolCatalog } from './tool-catalog.js';
import { makePrincipal } from './principals.js';
import { PROFILES } from '@holdfast/shared/tools';

describe('MCP Apps clients (issue 16 §6)', () => {
  it('recognises the UI extension with HTML views only', () => {
    assert.equal(declaresMcpApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } }), true);
    assert.equal(declaresMcpApps({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/x-other'] } } }), false);
    assert.equal(declaresMcpApps({ extensions: {} }), false);
    assert.equal(declaresMcpApps(undefined), false);
  });

  it('lists desktop_open with the ui:// resource and the app-only desktop_panel to such clients only', () => {
    const catalog = new ToolCatalog();
    const owner = makePrincipal('owner', [...PROFILES.full], null);
    const plain = catalog.listFor(owner);
    const apps = catalog.listFor(owner, true);
    assert.equal(plain.some((t) => t.name === 'desktop_panel'), false);
    assert.equal(plain.find((t) => t.name === 'desktop_open')!._meta, undefined);
    assert.deepEqual(apps.find((t) => t.name === 'desktop_open')!._meta, { ui: { resourceUri: 'ui://holdfast/desktop.html' } });
    assert.deepEqual(apps.find((t) => t.name === 'desktop_panel')!._meta, { ui: { resourceUri: 'ui://holdfast/desktop.html', visibility: ['app'] } });
    assert.equal(apps.length, plain.length + 1);
  });
});
