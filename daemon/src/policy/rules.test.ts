import assert from 'node:assert/strict';
import { homedir, userInfo } from 'node:os';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateCommand, type PolicyDecision } from './commands.js';

/**
 * Deny/confirm rules understand option equivalence, home-folder spellings and path normalisation
 * (options.ts, paths.ts; review finding 2). The rules here are the user's own, not the floor.
 */
type Rules = Parameters<typeof evaluateCommand>[1];
const HOME = homedir();

function table(rules: Rules, rows: [string, PolicyDecision][], cwd: string | null = null): void {
  for (const [command, want] of rows) {
    it(`${JSON.stringify(command)} → ${want}`, () => {
      const v = evaluateCommand({ command, cwd }, rules);
      assert.equal(v.decision, want, v.reason);
    });
  }
}

describe('rules: rm option spellings are one option (review finding 2)', () => {
  const rules = { default: 'allow' as const, deny: ['rm -rf /tmp/victim'], confirm: ['rm -r /srv/data'], allow: [] };
  table(rules, [
    ['rm -rf /tmp/victim', 'deny'],
    ['rm --recursive --force /tmp/victim', 'deny'],
    ['rm -R --force /tmp/victim', 'deny'],
    ['rm -fR /tmp/victim', 'deny'],
    ['rm -r -v -f /tmp/victim', 'deny'],
    ['rm -dRfv /tmp/victim', 'deny'],
    ['rm --rec --for /tmp/victim', 'deny'],
    ['rm --recursive --force=x /tmp/victim', 'deny'],
    ['rm -rf /tmp/victim/', 'deny'],
    ['rm -rf //tmp//victim', 'deny'],
    ['rm -rf /tmp/./victim', 'deny'],
    ['rm -rf /tmp/x/../victim', 'deny'],
    ['rm -rf -- /tmp/victim', 'deny'],
    ['rm -rf /tmp/victim2', 'allow'],
    ['rm -f /tmp/victim', 'allow'],
    ['rm -r /tmp/victim', 'allow'],
    ['rm --recursive /srv/data', 'confirm'],
    ['rm -R /srv/data', 'confirm'],
  ]);
  table(rules, [['rm -rf ../victim', 'deny'], ['rm -rf victim', 'deny'], ['rm -rf ./other', 'allow']], '/tmp/x/..');
});

describe('rules: the home folder has one meaning (review finding 2)', () => {
  const rules = { default: 'allow' as const, deny: ['rm -rf ~/important'], confirm: ['cp -r ~'], allow: [] };
  table(rules, [
    ['rm -rf ~/important', 'deny'],
    ['rm -rf "$HOME/important"', 'deny'],
    ['rm -rf ${HOME}/important/', 'deny'],
    [`rm -rf ~${userInfo().username}/important`, 'deny'],
    [`rm -rf ${HOME}/important`, 'deny'],
    [`rm -rf ${HOME}/x/../important`, 'deny'],
    ['rm -rf ~/other', 'allow'],
    ['cp -R ~ /backup', 'confirm'],
    [`cp --recursive ${HOME}/ /backup`, 'confirm'],
  ]);
});

describe('rules: long options, abbreviations and subcommands (options.ts)', () => {
  const rules = { default: 'allow' as const, deny: ['git push --force', 'kubectl delete --all', 'git branch -D', 'npm publish'], confirm: ['npm install', 'git clean -f'], allow: [] };
  table(rules, [
    ['git push --force', 'deny'],
    ['git push -f', 'deny'],
    ['git push --forc origin', 'deny'],
    ['git push origin +main', 'deny'],
    ['git -C sub push -f', 'deny'],
    ['git push origin main', 'allow'],
    ['git push --force-with-lease', 'allow'],
    ['kubectl delete pods --all', 'deny'],
    ['kubectl delete pods --al', 'deny'],
    ['kubectl delete pods --all-namespaces x', 'allow'],
    ['git branch -D old', 'deny'],
    ['git branch --delete --force old', 'deny'],
    ['git branch -d -f old', 'deny'],
    ['git branch -d old', 'allow'],
    ['npm i', 'confirm'],
    ['npm add zod', 'confirm'],
    ['npm -w web install zod', 'confirm'],
    ['git clean -fdx', 'confirm'],
    ['git clean --force -d', 'confirm'],
    ['git clean -n', 'allow'],
  ]);
  it('a rule written with long options means the same as the short one', () => {
    const long = { default: 'allow' as const, deny: ['rm --recursive --force /x'], confirm: [], allow: [] };
    assert.equal(evaluateCommand({ command: 'rm -rf /x' }, long).decision, 'deny');
    assert.equal(evaluateCommand({ command: 'rm -Rf /x' }, long).decision, 'deny');
  });
});

describe('rules: allow rules only for the real program (review finding 6)', () => {
  const rules = { default: 'confirm' as const, deny: [], confirm: [], allow: ['npm test', 'make build', './gradlew build'] };
  table(rules, [
    ['npm test', 'allow'],
    ['/usr/bin/make build', 'allow'],
    ['/usr/local/bin/npm test', 'allow'],
    ['/tmp/npm test', 'confirm'],
    ['./make build', 'confirm'],
    ['ln -s /usr/bin/id /tmp/x && /tmp/x', 'confirm'],
    ['./gradlew build', 'allow'],
  ]);
});

describe('rules: properties', () => {
  it('any spelling of rm -rf matches a deny rule written either way', () => {
    const recursive = fc.constantFrom('-r', '-R', '--recursive', '--recursiv', '--rec');
    const force = fc.constantFrom('-f', '--force', '--forc', '--f');
    const extra = fc.subarray(['-v', '-i', '-d', '-I', '--verbose', '--one-file-system']);
    const opts = fc.tuple(recursive, force, extra).chain(([r, f, e]) => fc.shuffledSubarray([r, f, ...e], { minLength: 2 + e.length }));
    const target = fc.constantFrom('/tmp/victim', '/tmp/victim/', '//tmp/victim', '/tmp/./victim', '/tmp/../tmp/victim', '"/tmp/victim"', "'/tmp/victim'");
    const ruleText = fc.constantFrom('rm -rf /tmp/victim', 'rm -fr /tmp/victim', 'rm --recursive --force /tmp/victim', 'rm -R -f /tmp/victim');
    fc.assert(
      fc.property(opts, target, ruleText, (o, t, rule) => {
        const rules = { default: 'allow' as const, deny: [rule], confirm: [], allow: [] };
        return evaluateCommand({ command: `rm ${o.join(' ')} ${t}` }, rules).decision === 'deny';
      }),
      { numRuns: 300 },
    );
  });
  it('matching stays sound: a rule never fires for a command without its options', () => {
    fc.assert(
      fc.property(fc.subarray(['-v', '-i', '-d', '--verbose', '-I']), (opts) => {
        const rules = { default: 'allow' as const, deny: ['rm -rf /tmp/victim'], confirm: [], allow: [] };
        return evaluateCommand({ command: `rm ${opts.join(' ')} /tmp/victim` }, rules).decision === 'allow';
      }),
    );
  });
});
