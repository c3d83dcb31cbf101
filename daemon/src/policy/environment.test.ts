import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateCommand, evaluateEnvironment, type PolicyDecision } from './commands.js';
import { riskyEnvironmentName } from './environment.js';

/** Review finding 3: environment variables that make programs run other code. */
const ALLOW = { default: 'allow' as const, deny: [], confirm: [], allow: [] };
const DENY = { ...ALLOW, default: 'deny' as const };
const OWN_PATH = process.env.PATH ?? '/usr/bin:/bin';

describe('evaluateEnvironment: the env argument of execute (review finding 3)', () => {
  const rows: [Record<string, string>, PolicyDecision, PolicyDecision][] = [
    // env, under default allow, under default deny
    [{}, 'allow', 'allow'],
    [{ NODE_ENV: 'test', CI: '1', LANG: 'C.UTF-8', FORCE_COLOR: '0' }, 'allow', 'allow'],
    [{ GIT_PAGER: 'touch /x' }, 'confirm', 'deny'],
    [{ GIT_EXTERNAL_DIFF: '/tmp/x' }, 'confirm', 'deny'],
    [{ PATH: `/evil:${OWN_PATH}` }, 'confirm', 'deny'],
    [{ PATH: '/evil' }, 'confirm', 'deny'],
    [{ PATH: '$PATH:/opt/bin' }, 'confirm', 'deny'], // literal: the value is not expanded
    [{ PATH: `${OWN_PATH}:/opt/bin` }, 'allow', 'allow'], // appended to the daemon's own PATH
    [{ PATH: OWN_PATH }, 'allow', 'allow'],
    [{ LD_PRELOAD: '/tmp/x.so' }, 'confirm', 'deny'],
    [{ LD_LIBRARY_PATH: '/tmp' }, 'confirm', 'deny'],
    [{ LD_AUDIT: '/tmp/x.so' }, 'confirm', 'deny'],
    [{ DYLD_INSERT_LIBRARIES: '/tmp/x.dylib' }, 'confirm', 'deny'],
    [{ BASH_ENV: '/tmp/x.sh' }, 'confirm', 'deny'],
    [{ ENV: '/tmp/x.sh' }, 'confirm', 'deny'],
    [{ PROMPT_COMMAND: 'id' }, 'confirm', 'deny'],
    [{ PS4: '$(id)' }, 'confirm', 'deny'],
    [{ SHELLOPTS: 'xtrace' }, 'confirm', 'deny'],
    [{ BASHOPTS: 'extdebug' }, 'confirm', 'deny'],
    [{ IFS: '/' }, 'confirm', 'deny'],
    [{ GIT_SSH: '/tmp/x' }, 'confirm', 'deny'],
    [{ GIT_SSH_COMMAND: 'touch /x' }, 'confirm', 'deny'],
    [{ GIT_EDITOR: 'touch /x' }, 'confirm', 'deny'],
    [{ GIT_ASKPASS: '/tmp/x' }, 'confirm', 'deny'],
    [{ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.pager', GIT_CONFIG_VALUE_0: 'touch /x' }, 'confirm', 'deny'],
    [{ GIT_CONFIG_GLOBAL: '/tmp/evil' }, 'confirm', 'deny'],
    [{ GIT_EXEC_PATH: '/tmp' }, 'confirm', 'deny'],
    [{ PAGER: 'sh -c id' }, 'confirm', 'deny'],
    [{ MANPAGER: 'touch /x' }, 'confirm', 'deny'],
    [{ LESSOPEN: '|touch /x %s' }, 'confirm', 'deny'],
    [{ LESSCLOSE: 'touch /x' }, 'confirm', 'deny'],
    [{ EDITOR: 'touch /x' }, 'confirm', 'deny'],
    [{ VISUAL: 'touch /x' }, 'confirm', 'deny'],
    [{ PYTHONSTARTUP: '/tmp/x.py' }, 'confirm', 'deny'],
    [{ PYTHONPATH: '/tmp' }, 'confirm', 'deny'],
    [{ NODE_OPTIONS: '--require /tmp/x.js' }, 'confirm', 'deny'],
    [{ PERL5OPT: '-Mx' }, 'confirm', 'deny'],
    [{ RUBYOPT: '-rx' }, 'confirm', 'deny'],
    [{ npm_config_script_shell: '/tmp/x' }, 'confirm', 'deny'],
    [{ HOME: '/tmp/evil' }, 'confirm', 'deny'],
    [{ GCONV_PATH: '/tmp' }, 'confirm', 'deny'],
    [{ GIT_PAGER: 'cat' }, 'allow', 'allow'],
    [{ PAGER: 'less -R' }, 'allow', 'allow'],
    [{ EDITOR: 'true' }, 'allow', 'allow'],
    [{ GIT_EDITOR: '/usr/bin/vim' }, 'allow', 'allow'],
    [{ PAGER: '' }, 'allow', 'allow'],
  ];
  for (const [env, underAllow, underDeny] of rows) {
    it(`${JSON.stringify(env)} → ${underAllow} (default allow), ${underDeny} (default deny)`, () => {
      assert.equal(evaluateEnvironment(env, ALLOW).decision, underAllow, evaluateEnvironment(env, ALLOW).reason);
      assert.equal(evaluateEnvironment(env, DENY).decision, underDeny);
    });
  }
  it('a name that is not a variable name, or a value with NUL or a control character, is refused', () => {
    const envs: Record<string, string>[] = [{ 'BASH_FUNC_ls%%': '() { id; }' }, { 'A B': '1' }, { '': 'x' }, { X: 'a\u0000b' }, { X: 'a\u0003' }, { X: '\u001b[201~' }, { X: 'a\rb' }];
    for (const env of envs) {
      const v = evaluateEnvironment(env, ALLOW);
      assert.equal(v.decision, 'deny', JSON.stringify(env));
      assert.equal(v.variables[0]!.rule, 'environment: invalid');
    }
    assert.equal(evaluateEnvironment({ X: 'multi\nline\tvalue' }, ALLOW).decision, 'allow');
  });
  it('names the variables and why', () => {
    const v = evaluateEnvironment({ GIT_PAGER: 'touch /x', NODE_ENV: 'x' }, ALLOW);
    assert.deepEqual(
      v.variables.map((x) => [x.name, x.decision, x.rule]),
      [['GIT_PAGER', 'confirm', 'environment: GIT_PAGER']],
    );
    assert.match(v.reason, /GIT_PAGER/);
  });
  it('evaluateCommand folds the env argument into the verdict', () => {
    const v = evaluateCommand({ command: 'git log', env: { GIT_PAGER: 'touch /x' } }, ALLOW);
    assert.equal(v.decision, 'confirm');
    assert.ok(v.segments.some((s) => s.rule === 'environment: GIT_PAGER'));
    assert.equal(evaluateCommand({ command: 'ls', env: { PATH: '/evil' } }, DENY).decision, 'deny');
    const bad = evaluateCommand({ argv: ['ls'], env: { X: 'a\u0000' } }, ALLOW);
    assert.equal(bad.decision, 'deny');
    assert.equal(bad.refusals[0]!.kind, 'environment');
  });
  it('property: only listed names are ever held back', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/), fc.string({ maxLength: 20 }).filter((s) => !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(s)), (name, value) => {
        const d = evaluateEnvironment({ [name]: value }, ALLOW).decision;
        return riskyEnvironmentName(name) === null ? d === 'allow' : d !== 'deny';
      }),
      { numRuns: 300 },
    );
  });
});

describe('environment set inside the command line (review finding 3)', () => {
  const rows: [string, PolicyDecision][] = [
    ["GIT_PAGER='touch /x' git log -1", 'confirm'],
    ['GIT_PAGER=cat git log -1', 'allow'],
    ['PAGER= git log', 'allow'],
    ['EDITOR=true git commit', 'allow'],
    ['LD_PRELOAD=/tmp/x.so ls', 'confirm'],
    ['PATH=/evil:$PATH ls', 'confirm'],
    ['export PATH="$HOME/.local/bin:$PATH"', 'confirm'],
    ['export PATH=$PATH:/opt/bin', 'allow'],
    ['export PATH="${PATH}:$HOME/bin"', 'allow'],
    ['PATH+=:/opt/bin', 'allow'],
    ['export PYTHONPATH=src', 'confirm'],
    ['export NODE_ENV=test', 'allow'],
    ['declare -x NODE_OPTIONS="--require x"', 'confirm'],
    ["env GIT_SSH_COMMAND='touch /x' git fetch", 'confirm'],
    ['sudo LD_PRELOAD=x ls', 'confirm'],
    ['systemd-run -E GIT_PAGER=x git log', 'confirm'],
    ['read -r PROMPT_COMMAND <<< x', 'confirm'],
    ['read -r -a LD_PRELOAD', 'confirm'],
    ['read -r name', 'allow'],
    ['printf -v PATH /evil', 'confirm'],
    ["printf -v x '%s' y", 'allow'],
    ['mapfile -t LD_PRELOAD < f', 'confirm'],
    ['getopts ab IFS', 'confirm'],
    ['declare -n ref=PATH', 'confirm'],
    [': ${PROMPT_COMMAND:=touch /x}', 'confirm'],
    ['echo ${BASH_ENV=/tmp/x}', 'confirm'],
    ['echo ${X:=1}', 'allow'],
    ['export GIT_CONFIG_COUNT=1', 'confirm'],
    ['HOME=/tmp/x git status', 'confirm'],
    ['FOO=1 BAR=2', 'allow'],
  ];
  for (const [command, want] of rows) {
    it(`${JSON.stringify(command)} → ${want}`, () => {
      const v = evaluateCommand({ command }, ALLOW);
      assert.equal(v.decision, want, v.reason);
    });
  }
  it('under default: deny the same assignments are denied', () => {
    assert.equal(evaluateCommand({ command: "GIT_PAGER='touch /x' git log" }, DENY).decision, 'deny');
    assert.equal(evaluateCommand({ command: 'PROMPT_COMMAND=id' }, DENY).decision, 'deny');
  });
});
