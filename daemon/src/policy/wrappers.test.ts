import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateCommand, type PolicyDecision } from './commands.js';

/** Wrappers looked through (review finding 6): a rule fires for the command they run. */
const RULES = { default: 'allow' as const, deny: ['rm -rf /tmp/victim', 'id'], confirm: ['git push'], allow: [] };

describe('wrappers that run a command are looked through (review finding 6)', () => {
  const rows: [string, PolicyDecision][] = [
    ["su -c 'rm -rf /tmp/victim'", 'deny'],
    // `--` ends the wrapper's options; its positionals still come before the command
    ['timeout -- 5 id', 'deny'],
    ['time -- id', 'deny'],
    ['nice -n 5 -- git push', 'confirm'],
    // package runners and other programs that run the command they are given
    ['npm exec -- id', 'deny'],
    ['npm x id', 'deny'],
    ["npm exec -c 'git push'", 'confirm'],
    ['npm run build', 'allow'],
    ['npm exec tsc', 'allow'],
    ['pnpm dlx id', 'deny'],
    ["pnpm exec -c 'rm -rf /tmp/victim'", 'deny'],
    ['yarn dlx id', 'deny'],
    ['yarn build', 'allow'],
    ['bunx id', 'deny'],
    ['bun x id', 'deny'],
    ['valgrind --leak-check=full id', 'deny'],
    ['ltrace -o trace.txt id', 'deny'],
    ['unbuffer git push', 'confirm'],
    ['firejail --private id', 'deny'],
    ["tmux new-session -d -s s 'rm -rf /tmp/victim'", 'deny'],
    ['tmux -L sock new-window id', 'deny'],
    ['tmux ls', 'allow'],
    ['screen -dmS job id', 'deny'],
    ['screen -r job', 'allow'],
    // a shell whose script file is its own input
    ["bash /dev/stdin <<< 'rm -rf /tmp/victim'", 'deny'],
    ["source /dev/stdin <<< 'id'", 'deny'],
    [". /dev/fd/0 <<< 'git push'", 'confirm'],
    ['cat x | bash /dev/stdin', 'confirm'],
    ["bash -s x <<'EOF'\nrm -rf /tmp/victim\nEOF", 'deny'],
    ["bash 3<<< 'id' /dev/fd/3", 'deny'],
    ["source /dev/fd/3 3<<< 'id'", 'deny'],
    ["bash -c 'source /dev/stdin' <<< 'id'", 'deny'],
    ["bash //dev/./stdin <<< 'id'", 'deny'],
    ["bash /dev/fd//0 <<< 'git push'", 'confirm'],
    ['source /dev/stdin', 'confirm'],
    ['bash -s', 'confirm'],
    ['bash /dev/stdin < x.sh', 'confirm'],
    ["bash <<'EOF'\nls\nEOF", 'allow'],
    ["su - root -c 'rm -rf /tmp/victim'", 'deny'],
    ["su --command='git push' bob", 'confirm'],
    ['su bob', 'allow'],
    ['runuser -u nobody -- rm -rf /tmp/victim', 'deny'],
    ["runuser -l bob -c 'id'", 'deny'],
    ['chroot /srv/jail id', 'deny'],
    ['chroot --userspec=1:1 /srv/jail git push', 'confirm'],
    ['unshare -r id', 'deny'],
    ['unshare --map-user 0 --mount id', 'deny'],
    ['nsenter -t 1 -m -u id', 'deny'],
    ["script -qc 'rm -rf /tmp/victim' /dev/null", 'deny'],
    ["script -c 'git push' log.txt", 'confirm'],
    ['script log.txt', 'allow'],
    ['flock /tmp/lock rm -rf /tmp/victim', 'deny'],
    ["flock -w 5 /tmp/lock -c 'git push'", 'confirm'],
    ['flock -n 9', 'allow'],
    ["watch -n 1 'rm -rf /tmp/victim'", 'deny'],
    ['watch git push', 'confirm'],
    ['watch -x id', 'deny'],
    ["sg docker -c 'id'", 'deny'],
    ["sg docker 'git push'", 'confirm'],
    ['setpriv --reuid 1000 --regid 1000 --init-groups id', 'deny'],
    ['chrt -f 10 id', 'deny'],
    ['chrt -p 1234', 'allow'],
    ['taskset -c 0-3 id', 'deny'],
    ['taskset 0x3 git push', 'confirm'],
    ['taskset -p 0x3 1234', 'allow'],
    ['systemd-run --user --scope id', 'deny'],
    ['systemd-run -p MemoryMax=1G -u job git push', 'confirm'],
    ['busybox rm -rf /tmp/victim', 'deny'],
    ["busybox sh -c 'id'", 'deny'],
    ['stdbuf -oL -eL id', 'deny'],
    ['stdbuf --output=L git push', 'confirm'],
    ['time id', 'deny'],
    ['/usr/bin/time -v id', 'deny'],
    ['doas -u root id', 'deny'],
    ['pkexec id', 'deny'],
    ['pkexec --user root git push', 'confirm'],
    ['strace -f -o /tmp/t id', 'deny'],
    ['fakeroot id', 'deny'],
    ['eatmydata git push', 'confirm'],
    ['setarch x86_64 -R id', 'deny'],
    ['poetry run id', 'deny'],
    ['pipenv run git push', 'confirm'],
    ['uv run --with requests id', 'deny'],
    ['bundle exec id', 'deny'],
    ['conda run -n base id', 'deny'],
    ['mise exec -- id', 'deny'],
    ['direnv exec . id', 'deny'],
    ["npx -c 'id'", 'deny'],
    ["nix-shell -p hello --run 'id'", 'deny'],
    ['python3 -m pip --version', 'allow'],
    ['poetry install', 'allow'],
    ["mapfile -C 'id' -c 1 arr < f", 'deny'],
  ];
  for (const [command, want] of rows) {
    it(`${JSON.stringify(command)} → ${want}`, () => {
      const v = evaluateCommand({ command }, RULES);
      assert.equal(v.decision, want, v.reason);
    });
  }
  it('a command string only known at run time needs confirmation', () => {
    for (const c of ['su -c "$X"', 'script -c "$X"', 'watch "$X"', 'sg docker "$X"']) {
      assert.equal(evaluateCommand({ command: c }, RULES).decision, 'confirm', c);
    }
  });
  it('property: any stack of wrappers still reaches the denied command', () => {
    const wrapper = fc.constantFrom('sudo', 'doas', 'pkexec', 'env', 'nice', 'nohup', 'timeout 5', 'chroot /srv', 'unshare -r', 'nsenter -t 1 -m', 'setpriv --reuid 1', 'chrt -f 1', 'taskset 1', 'systemd-run --user', 'flock /tmp/l', 'stdbuf -oL', 'time', 'busybox', 'strace -f', 'runuser -u x --', 'watch -x', 'setsid', 'ionice -c 3');
    fc.assert(
      fc.property(fc.array(wrapper, { minLength: 1, maxLength: 4 }), (ws) => evaluateCommand({ command: `${ws.join(' ')} id` }, RULES).decision === 'deny'),
      { numRuns: 300 },
    );
  });
});
