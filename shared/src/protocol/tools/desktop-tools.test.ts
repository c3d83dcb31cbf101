import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DESKTOP_TOOLS, desktopOpenBrowserTool, PROFILES, screenshotCaptureTool, TOOLS } from './index.js';
import { toolListing } from './json-schema.js';

/** Keys no model API accepts at a schema's root, and references anywhere (issue 15, BRIEF). */
const ROOT_FORBIDDEN = ['oneOf', 'anyOf', 'allOf', 'not', 'enum', '$ref', '$defs'];

function hasRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasRef);
  if (node !== null && typeof node === 'object') return Object.entries(node).some(([k, v]) => k === '$ref' || k === '$defs' || hasRef(v));
  return false;
}

describe('desktop tool catalogue (issues 15, 16)', () => {
  const tools = [...DESKTOP_TOOLS, screenshotCaptureTool];

  it('serves the ten desktop tools and screenshot_capture, each taking remote_session_id, with flat object input schemas', () => {
    assert.deepEqual(
      tools.map((t) => t.name),
      [
        'desktop_list_devices',
        'desktop_connect',
        'desktop_open',
        'desktop_open_browser',
        'desktop_get_session',
        'desktop_screenshot',
        'desktop_action',
        'desktop_set_control',
        'desktop_select_display',
        'desktop_disconnect',
        'screenshot_capture',
      ],
    );
    for (const t of tools) {
      assert.ok(TOOLS.some((s) => s.name === t.name), `${t.name} is served`);
      const input = toolListing(t).inputSchema;
      assert.equal(input.type, 'object');
      for (const k of ROOT_FORBIDDEN) assert.ok(!(k in input), `${t.name}: no top-level ${k}`);
      assert.ok(!hasRef(input), `${t.name}: no $ref anywhere`);
      assert.ok((input.required as string[]).includes('remote_session_id'), `${t.name} takes remote_session_id`);
    }
  });

  it('keeps the listing small: about 8 KB without output schemas, terse descriptions; desktop_open_browser ≤ 450 bytes', () => {
    let bytes = 0;
    for (const t of tools) {
      const { outputSchema: _drop, ...listing } = toolListing(t);
      bytes += JSON.stringify(listing).length;
      assert.ok(t.description.length <= 400, `${t.name} description is ${t.description.length} characters`);
    }
    assert.ok(bytes <= 8400, `desktop listings are ${bytes} bytes`);
    const { outputSchema: _drop, ...browser } = toolListing(desktopOpenBrowserTool);
    assert.ok(JSON.stringify(browser).length <= 450, `desktop_open_browser is ${JSON.stringify(browser).length} bytes`);
  });

  it('has a desktop profile with exactly workspace, session and the desktop tools', () => {
    assert.deepEqual([...PROFILES.desktop].sort(), ['workspace', 'session', ...DESKTOP_TOOLS.map((t) => t.name)].sort());
    for (const t of tools) assert.ok(PROFILES.full.includes(t.name), `${t.name} is in full`);
  });
});
