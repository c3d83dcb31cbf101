import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigStore } from './config-store.js';

describe('workspace registration in config.yaml', () => {
  const base = realpathSync(mkdtempSync('/tmp/hf-config-store-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  for (const d of ['one/app', 'two/app', 'three']) mkdirSync(join(base, d), { recursive: true });

  it('the same path is idempotent; a taken name says what to do next, in the words of how it was chosen', () => {
    const store = new ConfigStore(join(base, 'config.yaml'));
    assert.equal(store.registerWorkspace(join(base, 'one/app')).created, true);
    assert.equal(store.registerWorkspace(join(base, 'one/app')).created, false);
    // The folder's own name is taken: the next step is to give a name.
    assert.throws(() => store.registerWorkspace(join(base, 'two/app')), /workspace name "app" is already used for .*one\/app; pass --name with another name/);
    // A name chosen with --name is taken: the next step is to choose another one (not "pass --name").
    assert.throws(() => store.registerWorkspace(join(base, 'three'), 'app'), /already used for .*one\/app; choose another --name$/);
    assert.equal(store.registerWorkspace(join(base, 'two/app'), 'app2').workspace.name, 'app2');
  });
});
