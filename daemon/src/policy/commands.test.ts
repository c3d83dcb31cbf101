import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateCommand, type PolicyDecision } from './commands.js';

/** The generated default of config.yaml (issue 5) plus `sudo` and `rm -rf` rules as in a cautious home. */
const RULES = {
  default: 'allow' as const,
  deny: ['rm -rf /', "rm -rf '/*'", 'mkfs', 'mkfs.*', 'shutdown', 'sudo'],
  confirm: ['git push', 'docker', 'npm install', 'rm -rf'],
  allow: [],
};
const STRICT = { default: 'confirm' as const, deny: ['rm -rf /'], confirm: ['git push'], allow: ['npm test', 'make build'] };

const decide = (command: string, rules: Parameters<typeof evaluateCommand>[1] = RULES): PolicyDecision => evaluateCommand({ command }, rules).decision;

function table(rows: [string, PolicyDecision][], rules: Parameters<typeof evaluateCommand>[1] = RULES): void {
  for (const [command, want] of rows) {
    it(`${JSON.stringify(command)} → ${want}`, () => {
      const v = evaluateCommand({ command }, rules);
      assert.equal(v.decision, want, v.reason);
    });
  }
}

describe('command policy: always refused (issue 5)', () => {
  const cases: [string, string][] = [
    ['sleep 10 &', 'background'],
    ['a & b', 'background'],
    ['(sleep 1 &)', 'background'],
    ['coproc cat', 'coprocess'],
    ['echo $(sleep 1 &)', 'background'],
    ['ls &&', 'dangling_operator'],
    ['ls ||', 'dangling_operator'],
    ['ls |', 'dangling_operator'],
    ['ls && && pwd', 'dangling_operator'],
    ['echo "unterminated', 'parse_error'],
    ['if true; then', 'parse_error'],
    ['ls ;; pwd', 'parse_error'],
    ['   ', 'empty'],
    ["bash -c 'sleep 1 &'", 'background'],
  ];
  for (const [command, kind] of cases) {
    it(`${JSON.stringify(command)} is refused (${kind})`, () => {
      const v = evaluateCommand({ command }, { ...RULES, default: 'allow' });
      assert.equal(v.decision, 'deny');
      assert.ok(v.refusals.some((r) => r.kind === kind), JSON.stringify(v.refusals));
    });
  }
  it('single quotes keep $(…) and backticks literal', () => {
    assert.equal(decide("echo '$(id)' '`id`'"), 'allow');
    assert.equal(decide("cat <<'EOF'\n$(id)\nEOF\n"), 'allow');
    assert.equal(decide('cat <<"EOF"\n$(id)\nEOF\n'), 'allow');
    assert.equal(decide('cat <<\\EOF\n$(id)\nEOF\n'), 'allow');
  });
  it('a trailing lone & offers the same command as a background task', () => {
    const v = evaluateCommand({ command: 'npm run dev -- --port 3000 &' }, RULES);
    assert.equal(v.decision, 'deny');
    assert.equal(v.background_command, 'npm run dev -- --port 3000');
  });
  it('&&, &> and >& are not a lone &', () => {
    assert.equal(decide('true && echo ok &> /dev/null'), 'allow');
    assert.equal(decide('ls 2>&1 | cat'), 'allow');
  });
});

describe('command policy: commands inside substitutions and here-documents are judged (issue 8)', () => {
  const DEFAULT_ALLOW = { ...RULES, deny: [], confirm: ['git push', 'git reset --hard'] };
  table(
    [
      // The forms agents use all the time run under default: allow.
      ['for f in $(ls *.ts); do echo "$f"; done', 'allow'],
      ['echo "built at $(date)"', 'allow'],
      ["git commit -m \"$(cat <<'EOF'\nfix: keep the shell\n\nCo-authored-by: x\nEOF\n)\"", 'allow'],
      ["git commit -m \"$(cat <<-'EOF'\n\tsubject\n\tEOF\n)\"", 'allow'],
      ['echo `date`', 'allow'],
      ['diff <(sort a) <(sort b)', 'allow'],
      ['cat <<EOF\nhello $USER, today is $(date)\nEOF\n', 'allow'],
      ['x=$(id -u); echo "$x"', 'allow'],
      ['echo $(( 1 + $(id -u) ))', 'allow'],
      // What they hide is judged like any command.
      ['echo $(rm -rf /)', 'deny'],
      ['echo "$(rm -rf /)"', 'deny'],
      ['echo `rm -rf /`', 'deny'],
      ['echo ${x:-$(rm -rf /)}', 'deny'],
      ['[[ -n $(rm -rf /) ]]', 'deny'],
      ['a[$(rm -rf /)]=1', 'deny'],
      ['tee >(rm -rf /)', 'deny'],
      ['cat <<EOF\n$(rm -rf /)\nEOF\n', 'deny'],
      ['echo "$(echo "$(rm -rf ~)")"', 'deny'],
      ['echo $(cd / && rm -rf usr)', 'deny'],
      ["sh -c 'echo $(rm -rf /)'", 'deny'],
      ['x=$(git push)', 'confirm'],
      ['echo "$(git reset --hard)"', 'confirm'],
      // What cannot be judged before it runs: a command whose name comes from a substitution or variable.
      ['$(echo rm) -rf build', 'confirm'],
      ['`which python3` script.py', 'confirm'],
      ['"$CMD" --version', 'confirm'],
      // A commit message that is read from a file is only known at run time: it could be "push".
      ['git commit -m "$(cat msg.txt)"', 'confirm'],
    ],
    DEFAULT_ALLOW,
  );
  it('under default: deny a substitution whose command is unknown is refused, like the rest', () => {
    assert.equal(decide('echo $(make)', { default: 'deny', deny: [], confirm: [], allow: ['echo'] }), 'deny');
    assert.equal(decide('echo $(make)', { default: 'deny', deny: [], confirm: [], allow: ['echo', 'make'] }), 'allow');
    assert.equal(decide('$(echo ls)', { default: 'deny', deny: [], confirm: [], allow: ['ls', 'echo'] }), 'deny');
  });
  it('a command substitution cannot end the session shell or move its folder', () => {
    const v = evaluateCommand({ command: 'echo $(exit 3)', sessionShell: true }, DEFAULT_ALLOW);
    assert.equal(v.decision, 'allow', v.reason);
    const moved = evaluateCommand({ command: 'echo $(cd /); rm -rf usr', cwd: '/tmp', sessionShell: true }, DEFAULT_ALLOW);
    assert.equal(moved.decision, 'allow', `rm -rf usr runs in /tmp, not / (${moved.reason})`);
  });
});

describe('command policy: rules match the command as executed (issue 5)', () => {
  table([
    ['rm -rf /', 'deny'],
    ['rm -fr /', 'deny'],
    ['rm -r -f /', 'deny'],
    ['rm -rf //', 'deny'],
    ['rm -rf /tmp/..', 'deny'],
    ['rm -v -rf /', 'deny'],
    ['rm -rf /*', 'deny'],
    ['/usr/bin/sudo ls', 'deny'],
    ['sudo ls', 'deny'],
    ['"sudo" ls', 'deny'],
    ['"rm" -rf x', 'confirm'],
    ["'rm' -rf x", 'confirm'],
    ['\\rm -rf x', 'confirm'],
    ['r"m" -rf x', 'confirm'],
    ["$'\\x72m' -rf x", 'confirm'],
    ['/bin/rm -rf x', 'confirm'],
    ['rm -rf x', 'confirm'],
    ['rm x', 'allow'],
    ['mkfs /dev/sdb', 'deny'],
    ['mkfs.ext4 /dev/sdb', 'deny'],
    ['shutdown -h now', 'deny'],
    ['git push', 'confirm'],
    ['git push origin main', 'confirm'],
    ['git -C sub push', 'confirm'],
    ['git pull', 'allow'],
    ['docker ps', 'confirm'],
    ['npm install', 'confirm'],
    ['npm ci', 'allow'],
  ]);
});

describe('command policy: wrappers are looked through (issue 5)', () => {
  table([
    ['env rm -rf /', 'deny'],
    ['env -i FOO=1 rm -rf /', 'deny'],
    ['env -u HOME -- rm -rf /', 'deny'],
    ['command rm -rf /', 'deny'],
    ['exec rm -rf /', 'deny'],
    ['nice rm -rf /', 'deny'],
    ['nice -n 10 rm -rf /', 'deny'],
    ['nice -10 rm -rf /', 'deny'],
    ['nohup rm -rf /', 'deny'],
    ['timeout 5 rm -rf /', 'deny'],
    ['timeout -s KILL 5 rm -rf /', 'deny'],
    ['timeout --signal=KILL 5s rm -rf /', 'deny'],
    ['nohup nice timeout 5 env git push', 'confirm'],
    ["sh -c 'rm -rf /'", 'deny'],
    ["bash -c 'rm -rf /'", 'deny'],
    ["bash -lc 'git push'", 'confirm'],
    ["bash -e -c 'true; rm -rf /'", 'deny'],
    ['sh -c "sh -c \'rm -rf /\'"', 'deny'],
    ["eval 'rm -rf /'", 'deny'],
    ["alias ll='rm -rf /'", 'deny'],
    ["trap 'rm -rf /' EXIT", 'deny'],
    ["env -S 'rm -rf /'", 'deny'],
    ["bash <<'EOF'\nrm -rf /\nEOF\n", 'deny'],
    ["bash <<< 'rm -rf /'", 'deny'],
    ['xargs rm -rf', 'confirm'],
    ['find . -name "*.o" | xargs rm', 'confirm'], // xargs input could add -rf and /
    ['find / -exec rm -rf {} \\;', 'confirm'],
    ['sudo -u nobody env rm -rf /', 'deny'],
    ['command -v rm', 'allow'],
    ['time rm -rf /', 'deny'],
    ['! rm -rf /', 'deny'],
  ]);
});

describe('command policy: segments (issue 5)', () => {
  it('splits at && || ; | |& and newlines and inside compound commands', () => {
    const v = evaluateCommand({ command: 'a && b || c; d | e |& f\ng; if h; then i; fi; for x in 1; do j; done; { k; }; (l); f() { m; }' }, RULES);
    assert.deepEqual(
      v.segments.map((s) => s.command),
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm'],
    );
  });
  it('a denied segment refuses the whole line (true && <denied>)', () => {
    const v = evaluateCommand({ command: 'true && rm -rf /' }, RULES);
    assert.equal(v.decision, 'deny');
    assert.equal(v.segments[0]!.decision, 'allow');
    assert.equal(v.segments[1]!.decision, 'deny');
  });
  it('denied inside loops, functions and subshells too', () => {
    for (const c of ['for i in 1; do rm -rf /; done', 'f() { rm -rf /; }', '(cd x && rm -rf /)', 'if true; then :; else rm -rf /; fi', 'while false; do rm -rf /; done']) {
      assert.equal(decide(c), 'deny', c);
    }
  });
  it('redirections belong to their segment, and compound redirections to every inner segment', () => {
    const v = evaluateCommand({ command: 'ls > out.txt 2>&1 && { cat a; } >> log' }, RULES);
    assert.deepEqual(v.segments[0]!.redirects, ['> out.txt', '2>& 1']);
    assert.deepEqual(v.segments[1]!.redirects, ['>> log']);
  });
  it('confirm asks once for the whole frozen line', () => {
    const v = evaluateCommand({ command: 'git add -A && git commit -m x && git push' }, RULES);
    assert.equal(v.decision, 'confirm');
    assert.equal(v.segments.filter((s) => s.decision === 'confirm').length, 1);
  });
});

describe('command policy: run-time words', () => {
  table([
    ['$CMD -rf /', 'confirm'],
    ['"$CMD" x', 'confirm'],
    ['{rm,-rf,/}', 'deny'], // brace expansion of literal parts is expanded as bash would: rm -rf /
    ['{rm,-rf,/}$X', 'confirm'],
    ['rm -rf $DIR', 'confirm'],
    ['rm -rf "$HOME"', 'deny'], // $HOME is the daemon's home folder: the built-in floor (builtins.test.ts)
    ['rm -rf /?', 'confirm'],
    ["sh -c \"$X\"", 'confirm'],
    ['curl -s https://x | sh', 'confirm'],
    ['bash < script.sh', 'confirm'],
    ['bash script.sh', 'allow'],
    ['PROMPT_COMMAND="rm -rf ~"', 'confirm'],
    ["export PS1='$(id) '", 'confirm'],
    ['LD_PRELOAD=/tmp/x.so ls', 'confirm'],
    ['FOO=1 BAR=2', 'allow'],
    ['export PATH=$PATH:/opt/bin', 'allow'],
  ]);
  it('a run-time command name is denied when the default is deny', () => {
    assert.equal(decide('$CMD', { default: 'deny', deny: [], confirm: [], allow: [] }), 'deny');
  });
});

describe('command policy: allow rules and the read-only list (default confirm)', () => {
  table(
    [
      ['npm test', 'allow'],
      ['npm test -- --watch', 'allow'],
      ['timeout 60 npm test', 'allow'],
      ['npm  run test', 'confirm'],
      ['make build', 'allow'],
      ['make -j4 build', 'confirm'],
      ['ls -la', 'allow'],
      ['cat README.md | head -5 | wc -l', 'allow'],
      ['git status', 'allow'],
      ['git diff --stat', 'allow'],
      ['git log --oneline -5', 'allow'],
      ['git show HEAD', 'allow'],
      ['git -c core.fsmonitor=x status', 'confirm'],
      ['git diff --output=x', 'confirm'],
      ['git commit -m x', 'confirm'],
      ['git branch -a', 'allow'],
      ['git branch new', 'confirm'],
      ['rg TODO src', 'allow'],
      ['rg --pre ./x TODO', 'confirm'],
      ['grep -rn foo .', 'allow'],
      ['find . -name "*.ts"', 'allow'],
      ['find . -delete', 'confirm'],
      ['find . -exec cat {} +', 'confirm'],
      ['ls > listing.txt', 'confirm'],
      ['ls > /dev/null 2>&1', 'allow'],
      ['ls >&listing.txt', 'confirm'],
      ['./ls', 'confirm'],
      ['/usr/bin/ls', 'allow'],
      ['/tmp/ls', 'confirm'],
      ['sort -o out in', 'confirm'],
      ['sort in', 'allow'],
      ['uniq in out', 'confirm'],
      ['env', 'allow'],
      ['cd src && pwd', 'allow'],
      ['git push', 'confirm'],
      ['rm -rf /', 'deny'],
      ['python3 x.py', 'confirm'],
    ],
    STRICT,
  );
});

describe('command policy: the working directory (docs/command-policy.md)', () => {
  const LOCAL = { default: 'allow' as const, deny: [], confirm: [], allow: [] };
  const at = (command: string, cwd = '/tmp/hf-work'): PolicyDecision => evaluateCommand({ command, cwd }, LOCAL).decision;
  it('judges a relative path where the command runs, after cd, cd --, builtin cd and pushd', () => {
    assert.equal(at('rm -rf usr'), 'allow');
    for (const c of ['cd / && rm -rf usr', 'cd -- / && rm -rf usr', 'builtin cd / && rm -rf usr', 'command cd / && rm -rf usr', 'pushd / && rm -rf usr', 'cd /tmp && cd .. && rm -rf usr', 'cd ~/.. && rm -rf "$USER"x']) {
      assert.notEqual(at(c), 'allow', c);
    }
    assert.equal(at('cd / && rm -rf usr'), 'deny');
  });
  it('a cd that may have failed leaves both folders possible; branches count too', () => {
    assert.equal(at('cd / ; rm -rf usr'), 'deny');
    assert.equal(at('if test -d x; then cd /; fi; rm -rf usr'), 'deny');
    assert.equal(at('case $1 in a) cd / ;; esac; rm -rf usr'), 'deny');
  });
  it('a subshell or pipeline member keeps its cd to itself', () => {
    assert.equal(at('( cd / && rm -rf usr )'), 'deny');
    assert.equal(at('( cd / ); rm -rf usr'), 'allow');
    assert.equal(at('cd / | true; rm -rf usr'), 'allow', 'a first pipeline member always runs in a subshell');
    assert.equal(at('true | cd /; rm -rf usr'), 'deny', 'with lastpipe the last member may run in this shell');
  });
  it('a command string run by a wrapper starts where the wrapper runs', () => {
    assert.equal(at("sh -c 'cd / && rm -rf usr'"), 'deny');
    assert.equal(at("cd / && sh -c 'rm -rf usr'"), 'deny');
    assert.equal(at("sh -c 'cd /'; rm -rf usr"), 'allow', "a child shell's cd stays there");
    assert.equal(at("eval 'cd /'; rm -rf usr"), 'allow', 'eval moves to a folder the scan cannot place: judged as written');
  });
  it('a wrapper that moves the command (env -C, env --chdir, nsenter --wd, systemd-run --working-directory) moves the judgement', () => {
    for (const c of ['env -C / rm -rf usr', 'env --chdir=/ rm -rf usr', 'env --chdir / rm -rf usr', 'nsenter -w / rm -rf usr', 'systemd-run --working-directory=/ rm -rf usr', 'cd / && env -C .. rm -rf usr']) {
      assert.equal(at(c), 'deny', c);
    }
    assert.equal(at('env -C /tmp/elsewhere rm -rf usr'), 'allow');
  });
  it('argv mode is judged in the call folder', () => {
    assert.equal(evaluateCommand({ argv: ['rm', '-rf', 'usr'], cwd: '/' }, LOCAL).decision, 'deny');
    assert.equal(evaluateCommand({ argv: ['rm', '-rf', 'usr'], cwd: '/tmp/hf-work' }, LOCAL).decision, 'allow');
  });
});

describe('command policy: what ends the session shell', () => {
  const shell = (command: string): PolicyDecision => evaluateCommand({ command, sessionShell: true }, RULES).decision;
  it('exit, logout and exec in the session shell need confirmation', () => {
    for (const c of ['exit', 'exit 3', 'true && exit', 'if false; then exit; fi', 'logout', 'exec bash', 'exec > log 2>&1', 'die() { echo "$1"; exit 1; }']) assert.equal(shell(c), 'confirm', c);
    assert.match(evaluateCommand({ command: 'die() { exit 1; }', sessionShell: true }, RULES).reason, /when called, function die runs exit/);
  });
  it('not in a subshell, a pipeline or another shell, and not outside the session shell', () => {
    for (const c of ['( exit 3 )', 'echo a | exit', 'f() { ( exit 1 ); }', 'bash -c "exit 3"', "sh -c 'exec ls'"]) assert.equal(shell(c), 'allow', c);
    assert.equal(decide('exit 3'), 'allow', 'a background task or verify_command runs in a shell of its own');
  });
  it('builtin exit, command exit and kill of the shell, its group or its guardian need confirmation too (issue 18)', () => {
    for (const c of ['builtin exit', 'command exit 1', 'builtin exec bash', 'kill -9 $$', 'kill -9 0', 'kill -KILL -$$', 'kill -- -$$', 'kill -s KILL $BASHPID', 'kill "$$"', 'kill $PPID', 'env kill -9 ${PPID}']) {
      assert.equal(shell(c), 'confirm', c);
    }
    for (const c of ['command -v exit', 'kill -0 $$', 'kill %1', 'kill 1234', 'kill -l']) assert.equal(shell(c), 'allow', c);
    assert.equal(decide('kill -9 $PPID'), 'confirm', "a background task's parent is the guardian too");
    assert.equal(decide('kill -9 $$'), 'allow', 'a background task signalling its own shell ends only the task');
  });
});

describe('command policy: shell startup files (issue 18)', () => {
  const home = process.env.HOME ?? '/root';
  it('writing one needs confirmation: every new shell would run what was added', () => {
    for (const c of ['echo CMD >> ~/.bashrc', 'tee -a ~/.profile', 'cp x ~/.zshrc', "sed -i 's/a/b/' ~/.bash_profile", 'echo x > /etc/profile.d/x.sh', 'echo x >> "$HOME/.bash_login"', 'echo x >> $D/.bashrc', `cd ${home} && echo x >> .bashrc`, 'echo x > ~/.bash*', 'ln -sf /tmp/x ~/.bashrc.d/a', 'dd of=~/.inputrc']) {
      const v = evaluateCommand({ command: c, cwd: '/tmp' }, RULES);
      assert.equal(v.decision, 'confirm', `${c}: ${v.reason}`);
      assert.ok(v.segments.some((s) => s.rule === 'built-in: shell startup file'), c);
    }
  });
  it('reading or sourcing one does not', () => {
    for (const c of ['cat ~/.bashrc', 'grep alias ~/.profile', 'source ~/.bashrc', '. ~/.profile', 'echo x > myrc.txt', 'echo x >> ./notes/profile.md']) assert.equal(evaluateCommand({ command: c, cwd: '/tmp' }, RULES).decision, 'allow', c);
  });
});

describe('command policy: argv mode', () => {
  it('judges the exact vector without a shell', () => {
    assert.equal(evaluateCommand({ argv: ['printf', '%s|', '', 'a b', '名前'] }, RULES).decision, 'allow');
    assert.equal(evaluateCommand({ argv: ['echo', '$(id)'] }, RULES).decision, 'allow', 'no shell expands it');
    assert.equal(evaluateCommand({ argv: ['/bin/rm', '-rf', '/'] }, RULES).decision, 'deny');
    assert.equal(evaluateCommand({ argv: ['sh', '-c', 'rm -rf /'] }, RULES).decision, 'deny');
    assert.equal(evaluateCommand({ argv: ['sh', '-c', 'echo $(id)'] }, RULES).decision, 'allow', 'the command string is judged, $(id) inside it too');
    assert.equal(evaluateCommand({ argv: ['sh', '-c', 'echo $(rm -rf /)'] }, RULES).decision, 'deny');
    assert.equal(evaluateCommand({ argv: ['git', 'push'] }, RULES).decision, 'confirm');
    assert.equal(evaluateCommand({ argv: [] }, RULES).decision, 'deny');
  });
});

describe('command policy: rule syntax', () => {
  it('refuses a rule that is not one plain command', () => {
    for (const bad of ['a && b', 'ls > x', '$X', 'echo $(id)', '']) {
      assert.throws(() => evaluateCommand({ command: 'ls' }, { default: 'allow', deny: [bad], confirm: [], allow: [] }), /security\.commands\.deny\[0\]/);
    }
  });
  it('globs in rule names and arguments; a name with / matches the full path only', () => {
    const rules = { default: 'allow' as const, deny: ['npm run deploy*', '/opt/danger/*'], confirm: [], allow: [] };
    assert.equal(decide('npm run deploy-prod', rules), 'deny');
    assert.equal(decide('npm run build', rules), 'allow');
    assert.equal(decide('/opt/danger/tool x', rules), 'deny');
    assert.equal(decide('tool x', rules), 'allow');
  });
  it('long options match anywhere before --, with or without a value', () => {
    const rules = { default: 'allow' as const, deny: ['git push --force', 'kubectl delete --all'], confirm: [], allow: [] };
    assert.equal(decide('git push origin main --force', rules), 'deny');
    assert.equal(decide('git push origin -- --force', rules), 'allow');
    assert.equal(decide('kubectl --context x delete pods --all', rules), 'deny');
  });
});

describe('command policy: properties', () => {
  const quoteForms = (s: string): fc.Arbitrary<string> =>
    fc.constantFrom(s, `"${s}"`, `'${s}'`, `\\${s}`, `${s[0]}"${s.slice(1)}"`, `$'${s}'`, `/usr/bin/${s}`, `/bin/${s}`);
  const wrappers = fc.array(fc.constantFrom('env', 'command', 'nice', 'nohup', 'timeout 5', 'env A=1', 'exec', 'sudo -u x', 'time'), { maxLength: 3 });
  it('no quoting, path prefix or wrapper lets `rm -rf /` through', () => {
    fc.assert(
      fc.property(quoteForms('rm'), wrappers, fc.constantFrom('-rf', '-fr', '-r -f', '-f -r', '-Rrf'), fc.constantFrom('/', '//', '/.', '"/"', "'/'"), (rm, wrap, flags, root) => {
        const cmd = `${wrap.join(' ')} ${rm} ${flags} ${root}`.trim();
        const rules = { default: 'allow' as const, deny: ['rm -rf /'], confirm: [], allow: [] };
        return evaluateCommand({ command: cmd }, rules).decision === 'deny';
      }),
      { numRuns: 300 },
    );
  });
  it('never throws on arbitrary input, and refusals always mean deny', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const v = evaluateCommand({ command: s }, RULES);
        return v.refusals.length === 0 || v.decision === 'deny';
      }),
      { numRuns: 500 },
    );
  });
});
