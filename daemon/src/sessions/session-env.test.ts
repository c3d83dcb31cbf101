import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sessionBaseEnv } from './session-env.js';

describe('sessionBaseEnv (what a session inherits from a daemon started by npm start)', () => {
  it('drops npm run-script variables and the PATH entries npm prepended inside holdfast', () => {
    const env = sessionBaseEnv(
      {
        PATH: '/opt/holdfast/node_modules/.bin:/opt/node_modules/.bin:/node_modules/.bin:/opt/holdfast/adapter/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/home/u/proj/node_modules/.bin:/usr/bin:/bin',
        npm_config_cache: '/root/.npm',
        NPM_CONFIG_USERCONFIG: '/x',
        npm_lifecycle_event: 'start',
        INIT_CWD: '/opt/holdfast',
        HOME: '/home/u',
        LANG: 'C.UTF-8',
      },
      '/opt/holdfast',
      'g1',
    );
    assert.equal(env.PATH, '/home/u/proj/node_modules/.bin:/usr/bin:/bin');
    assert.deepEqual(Object.keys(env).sort(), ['HOLDFAST_SESSION', 'HOME', 'LANG', 'PATH']);
    assert.equal(env.HOLDFAST_SESSION, 'g1');
  });

  it('keeps a PATH without npm entries as it is', () => {
    assert.equal(sessionBaseEnv({ PATH: '/usr/local/bin:/usr/bin' }, '/opt/holdfast', 'g').PATH, '/usr/local/bin:/usr/bin');
  });
});
