import assert from 'node:assert/strict';
import { homedir, userInfo } from 'node:os';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_COMMAND_RULES } from '@holdfast/shared/config';
import { evaluateCommand, type PolicyDecision } from './commands.js';
import { holdfastHome } from './paths.js';

/**
 * The built-in floor and built-in confirmations (builtins.ts; review findings 2, 5, 6). They hold
 * with no rules at all, so most tables run against NONE; DEFAULTS is the generated config.
 */
const NONE = { default: 'allow' as const, deny: [], confirm: [], allow: [] };
const DEFAULTS = { default: 'allow' as const, deny: [...DEFAULT_COMMAND_RULES.deny], confirm: [...DEFAULT_COMMAND_RULES.confirm], allow: [] };
const HOME = homedir();
const USER = userInfo().username;

type Rules = Parameters<typeof evaluateCommand>[1];

function table(rows: [string, PolicyDecision, string?][], rules: Rules = NONE, cwd: string | null = null): void {
  for (const [command, want, rule] of rows) {
    it(`${JSON.stringify(command)} → ${want}${rule ? ` (${rule})` : ''}`, () => {
      const v = evaluateCommand({ command, cwd }, rules);
      assert.equal(v.decision, want, v.reason);
      if (rule) assert.ok(v.segments.some((s) => s.rule === rule), `${rule} not among ${v.segments.map((s) => s.rule).join(', ')}`);
    });
  }
}

describe('built-in floor: rm of the root, system and home folders, in every spelling (review finding 2)', () => {
  const P = 'built-in: protected path';
  table([
    ['rm -Rf ~', 'deny', P],
    ['rm -R -f /', 'deny', P],
    ['rm -Rf /', 'deny', P],
    ['rm --recursive --force ~', 'deny', P],
    ['rm -r --force ~', 'deny', P],
    ['rm -dRf ~', 'deny', P],
    ['rm -Rf /*', 'deny', P],
    ['rm --recursive -f /*', 'deny', P],
    ['rm -rf ~/..', 'deny', P],
    ['rm -rf ~/*', 'deny', P],
    ['rm -rf ~/.*', 'deny', P],
    ['rm -rf /root', 'deny', P],
    [`rm -rf ~${USER}`, 'deny', P],
    ['rm -rf ~someoneelse', 'deny', P],
    ['rm -rf "$HOME"', 'deny', P],
    ['rm -rf ${HOME}/', 'deny', P],
    [`rm -rf ${HOME}`, 'deny', P],
    [`rm -rf ${HOME}/../${HOME.split('/').pop()}`, 'deny', P],
    ['rm -r /', 'deny', P],
    ['rm -r -- /', 'deny', P],
    ['rm -rfv --one-file-system /usr', 'deny', P],
    ['rm --rec --for /etc', 'deny', P],
    ['rm -ri /bin', 'deny', P],
    ['rm -rf /usr/lib', 'deny', P],
    ['rm -rf /usr/l*', 'deny', P],
    ['rm -rf /b*', 'deny', P],
    ['rm -rf /*/*', 'deny', P],
    ['rm -rf /var/*', 'deny', P],
    ['rm -rf /home/*', 'deny', P],
    ['rm -rf /etc/ssh', 'deny', P],
    ['rm -rf //', 'deny', P],
    ['rm -rf /tmp/../etc', 'deny', P],
    ['rm -rf /lib64', 'deny', P],
    ['sudo rm -rf /boot', 'deny', P],
    ["bash -c 'rm -Rf ~'", 'deny', P],
    ['chmod -R 000 /', 'deny', P],
    ['chmod --recursive 777 ~', 'deny', P],
    ['chown -R nobody /usr', 'deny', P],
    ['chgrp -R staff /etc', 'deny', P],
    ['find / -delete', 'deny', P],
    ['find ~ -delete', 'deny', P],
    ['find -L / -type f -delete', 'deny', P],
    ['rsync -a --delete empty/ ~/', 'deny', P],
    ['mv ~ /tmp/old-home', 'deny', P],
    ['mv /usr /usr2', 'deny', P],
  ]);
});

describe('built-in floor: what it leaves alone', () => {
  table([
    ['rm -rf build dist node_modules', 'allow'],
    ['rm -rf ./build', 'allow'],
    ['rm -rf /tmp/victim', 'allow'],
    ['rm -rf /tmp/holdfast-test-*', 'allow'],
    ['rm -rf ~/.cache/pip', 'allow'],
    ['rm -rf "$HOME/.cache"', 'allow'],
    ['rm -rf ~/projects/old', 'allow'],
    ['rm -f /etc', 'allow'], // not recursive: rm refuses a folder by itself
    ['rm /tmp/x', 'allow'],
    ['chmod 644 /etc/hosts', 'allow'],
    ['chmod -R 755 .', 'allow'],
    ['chown -R $USER:$USER .', 'allow'],
    ['find . -name "*.pyc" -delete', 'allow'],
    ['find /tmp/x -delete', 'allow'],
    ['find / -name x', 'allow'],
    ['mv a.txt b.txt', 'allow'],
    ['rsync -a src/ /tmp/dst/', 'allow'],
  ]);
  it('a protected folder with a narrowing find test asks instead of refusing', () => {
    assert.equal(evaluateCommand({ command: "find ~ -name '*.pyc' -delete" }, NONE).decision, 'confirm');
  });
  it('an argument known only at run time asks (denied under default: deny)', () => {
    for (const c of ['rm -rf $DIR', 'rm -rf "$X"/', 'echo / | xargs rm -rf', 'find $X -delete']) {
      assert.equal(evaluateCommand({ command: c }, NONE).decision, 'confirm', c);
      assert.equal(evaluateCommand({ command: c }, { ...NONE, default: 'deny' }).decision, 'deny', c);
    }
  });
  it('allow rules cannot lift the floor', () => {
    assert.equal(evaluateCommand({ command: 'rm -rf /' }, { default: 'allow', deny: [], confirm: [], allow: ['rm'] }).decision, 'deny');
  });
});

describe('built-in floor: relative paths with a known working directory', () => {
  table(
    [
      ['rm -rf ..', 'deny'],
      ['rm -rf ../*', 'deny'],
      ['rm -rf ../..', 'deny'],
      ['rm -rf build', 'allow'],
      ['cd / && rm -rf *', 'deny'],
      ['cd /tmp && rm -rf *', 'deny'],
      ['cd && rm -rf ./*', 'deny'],
      ['cd ~ && rm -rf .*', 'deny'],
      ['cd /tmp/work && rm -rf *', 'allow'],
      ['(cd /) ; rm -rf build', 'allow'], // a subshell's cd does not move the line
    ],
    NONE,
    '/home/someone/project',
  );
  table([['cd / && rm -rf *', 'deny']], NONE, null);
});

describe('built-in floor: raw devices, killing every process, fork bombs (review finding 6)', () => {
  table([
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'deny', 'built-in: raw device'],
    ['dd if=x.iso of=/dev/disk/by-id/usb-x', 'deny', 'built-in: raw device'],
    ['cat image > /dev/nvme0n1', 'deny', 'built-in: raw device'],
    ['echo x | tee /dev/sdb', 'deny', 'built-in: raw device'],
    ['cp disk.img /dev/mmcblk0', 'deny', 'built-in: raw device'],
    ['shred -n 1 /dev/sdc', 'deny', 'built-in: raw device'],
    ['dd if=/dev/zero of=/dev/null bs=1M count=10', 'allow'],
    ['dd if=/dev/urandom of=key.bin bs=32 count=1', 'allow'],
    ['echo hi > /dev/null 2> /dev/stderr', 'allow'],
    ['echo b > /proc/sysrq-trigger', 'deny', 'built-in: raw device'],
    ['echo o | tee /proc/sysrq-trigger', 'deny', 'built-in: raw device'],
    ['echo mem > /sys/power/state', 'deny', 'built-in: raw device'],
    ['echo 1 > /sys/block/sda/device/delete', 'deny', 'built-in: raw device'],
    ['cat /proc/sys/kernel/sysrq', 'allow'],
    ['echo 1 > /sys/class/leds/input3::capslock/brightness', 'allow'],
    ['dd if=/dev/zero of=/dev/{sda,null}', 'deny', 'built-in: raw device'],
    ['kill -9 -1', 'deny', 'built-in: kill all'],
    ['kill -KILL -1', 'deny', 'built-in: kill all'],
    ['kill -s KILL -1', 'deny', 'built-in: kill all'],
    ['kill -- -1', 'deny', 'built-in: kill all'],
    ['/bin/kill -TERM -1', 'deny', 'built-in: kill all'],
    ['pkill -9 -u me', 'deny', 'built-in: kill all'],
    ['pkill -KILL -U 1000', 'deny', 'built-in: kill all'],
    ['pkill .', 'deny', 'built-in: kill all'],
    ['pkill -v sshd', 'deny', 'built-in: kill all'],
    ['killall -u me', 'deny', 'built-in: kill all'],
    ['killall -r .', 'deny', 'built-in: kill all'],
    ['killall5 -9', 'deny', 'built-in: kill all'],
    ['kill -9 1234', 'allow'],
    ['kill -1 1234', 'allow'],
    ['kill %1', 'allow'],
    ['pkill -u me firefox', 'allow'],
    ['pkill -STOP firefox', 'allow'],
    ["pkill -f 'node server.js'", 'allow'],
    ['killall firefox', 'allow'],
    [':(){ :|:; };:', 'deny', 'built-in: fork bomb'],
    ['f(){ f|f; }; f', 'deny', 'built-in: fork bomb'],
    ['bomb() { (bomb); bomb; }; bomb', 'deny', 'built-in: fork bomb'],
    [':(){ :|:& };:', 'deny'], // the lone & is refused too
    ['f(){ echo hi; }; f | cat', 'allow'],
    ['walk(){ for d in "$1"/*; do walk "$d"; done; }', 'allow'],
  ]);
});

describe('default deny and confirm lists (review finding 6)', () => {
  table(
    [
      ['systemctl poweroff', 'deny'],
      ['systemctl --force reboot', 'deny'],
      ['systemctl halt', 'deny'],
      ['systemctl kexec', 'deny'],
      ['sudo poweroff', 'deny'],
      ['reboot', 'deny'],
      ['halt -p', 'deny'],
      ['init 0', 'deny'],
      ['init 6', 'deny'],
      ['telinit 0', 'deny'],
      ['mkfs.ext4 /dev/sdb1', 'deny'],
      ['mke2fs /dev/sdb1', 'deny'],
      ['mkswap /dev/sdb2', 'deny'],
      ['wipefs -a /dev/sdb', 'deny'],
      ['blkdiscard /dev/sdb', 'deny'],
      ['systemctl restart nginx', 'allow'],
      ['npm install', 'confirm'],
      ['npm i lodash', 'confirm'],
      ['npm add lodash', 'confirm'],
      ['npm isntall lodash', 'confirm'],
      ['npm --prefix sub i', 'confirm'],
      ['npm install-test', 'confirm'],
      ['npm ci', 'confirm'],
      ['npm clean-install', 'confirm'],
      ['npm run build', 'allow'],
      ['npm test', 'allow'],
      ['pnpm i', 'confirm'],
      ['pnpm add zod', 'confirm'],
      ['pnpm --filter web add zod', 'confirm'],
      ['yarn', 'confirm'],
      ['yarn install --frozen-lockfile', 'confirm'],
      ['yarn add zod', 'confirm'],
      ['yarn build', 'allow'],
      ['pip install requests', 'confirm'],
      ['pip3 install -r requirements.txt', 'confirm'],
      ['python3 -m pip install requests', 'confirm'],
      ['python -m pip install -U pip', 'confirm'],
      ['python3 -m http.server', 'allow'],
      ['podman run alpine', 'confirm'],
      ['docker ps', 'confirm'],
      ['git push --force origin main', 'confirm'],
    ],
    DEFAULTS,
  );
});

describe('built-in confirmations: holdfast config and holdfast itself (review finding 5)', () => {
  const C = 'built-in: holdfast config';
  table([
    ["printf 'x: 1\\n' > .holdfast.yaml", 'confirm', C],
    ['echo >> ./.holdfast.yaml', 'confirm', C],
    ['cp /tmp/evil .holdfast.yaml', 'confirm', C],
    ['mv other.yaml sub/../.holdfast.yaml', 'confirm', C],
    ["sed -i 's/deny/x/' .holdfast.yaml", 'confirm', C],
    ['tee .holdfast.yaml < x', 'confirm', C],
    ['rm -f .holdfast.yaml', 'confirm', C],
    ['ln -sf /dev/null .holdfast.yaml', 'confirm', C],
    ['git checkout -- .holdfast.yaml', 'confirm', C],
    ['cp x .holdf*', 'confirm', C],
    ['dd if=x of=.holdfast.yaml', 'confirm', C],
    ['echo x >> ~/.holdfast/config.yaml', 'confirm', C],
    ['rm -rf ~/.holdfast', 'confirm', C],
    ['cat .holdfast.yaml', 'allow'],
    ['git diff .holdfast.yaml', 'allow'],
    ['grep deny .holdfast.yaml', 'allow'],
    ['holdfast restart-daemon', 'confirm', 'built-in: holdfast'],
    ['cp evil .holdfast.{yaml,bak}', 'confirm', C],
    ['node /opt/holdfast/adapter/dist/cli/main.js kill --all', 'confirm', 'built-in: holdfast'],
    ['node --enable-source-maps daemon/dist/main.js run', 'confirm', 'built-in: holdfast'],
    ['node adapter/dist/cli/main.js list', 'allow'],
    ['killall node', 'confirm', 'built-in: holdfast'],
    ['pkill -x node', 'confirm', 'built-in: holdfast'],
    ['pkill -f daemon/dist/main.js', 'confirm', 'built-in: holdfast'],
    ["pkill -f 'node server.js'", 'allow'],
    ['node index.js', 'allow'],
    ['holdfast workspace register /', 'confirm', 'built-in: holdfast'],
    // Issue 15: only the person lifts a desktop pause or authorizes devices.
    ['holdfast desktop resume ds_01J0000000000000000000000', 'confirm', 'built-in: holdfast'],
    ['holdfast desktop device add lab --host h --port 5900 --credential none --authorization control', 'confirm', 'built-in: holdfast'],
    ['holdfast desktop pair view_01J0000000000000000000000 --yes', 'confirm', 'built-in: holdfast'],
    ['holdfastd', 'confirm', 'built-in: holdfast'],
    ['systemctl --user restart holdfast', 'confirm', 'built-in: holdfast'],
    ['pkill holdfastd', 'confirm', 'built-in: holdfast'],
    ['holdfast list', 'allow'],
    ['holdfast doctor', 'allow'],
    ['holdfast daemon status', 'allow'],
    ['systemctl --user status holdfast', 'allow'],
  ]);
  it('under default: deny they are refused', () => {
    assert.equal(evaluateCommand({ command: 'cp x .holdfast.yaml' }, { ...NONE, default: 'deny' }).decision, 'deny');
  });
  it('a workspace kept inside the holdfast home is not holdfast configuration; the home’s own files are', () => {
    const ws = `${holdfastHome()}/ws`;
    assert.equal(evaluateCommand({ command: 'npm run build > out.txt', cwd: ws }, NONE).decision, 'allow');
    assert.equal(evaluateCommand({ command: 'sed -i s/a/b/ ../config.yaml', cwd: ws }, NONE).decision, 'confirm');
    assert.equal(evaluateCommand({ command: 'cd .. && rm -f token', cwd: ws }, NONE).decision, 'confirm');
  });
  it('allow rules cannot lift them', () => {
    assert.equal(evaluateCommand({ command: 'cp x .holdfast.yaml' }, { default: 'confirm', deny: [], confirm: [], allow: ['cp'] }).decision, 'confirm');
  });
});

describe('built-in confirmations: shell hooks and git configuration (review finding 6)', () => {
  const H = 'built-in: shell hook';
  table([
    ['fc -s', 'confirm', H],
    ['fc -e - ls', 'confirm', H],
    ['fc', 'confirm', H],
    ["history -s 'rm -rf build'", 'confirm', H],
    ['history -r other_history', 'confirm', H],
    ['fc -l', 'allow'],
    ['fc -ln -5', 'allow'],
    ['history', 'allow'],
    ['history 20', 'allow'],
    ['hash -p /usr/bin/id foo; foo', 'confirm', H],
    ["alias ll='ls -la'", 'confirm', H],
    ['enable -f /tmp/x.so foo', 'confirm', H],
    ['enable -n cd', 'confirm', H],
    ['bind -x \'"\\C-m": touch /x\'', 'confirm', H],
    ["complete -C 'touch /x' ls", 'confirm', H],
    ['hash -r', 'allow'],
    ['alias', 'allow'],
    ['enable', 'allow'],
    ['bind -p', 'allow'],
    ["git -c core.pager='touch /x' log", 'confirm', 'built-in: git config'],
    ["git -c core.sshCommand='touch /x' fetch", 'confirm', 'built-in: git config'],
    ["git -C sub -c alias.x='!id' x", 'confirm', 'built-in: git config'],
    ["git -c diff.x.textconv=id diff", 'confirm', 'built-in: git config'],
    ['git --config-env=core.fsmonitor=EVIL status', 'confirm', 'built-in: git config'],
    ['git --exec-path=/tmp/x status', 'confirm', 'built-in: git config'],
    ['git -c user.name=x -c user.email=y commit -m z', 'allow'],
    ['git -c color.ui=always log', 'allow'],
  ]);
  it('a denied program reached through hash -p or alias is still caught where it is defined', () => {
    const rules = { default: 'allow' as const, deny: ['id'], confirm: [], allow: [] };
    assert.equal(evaluateCommand({ command: 'alias foo=id' }, rules).decision, 'deny');
    assert.equal(evaluateCommand({ command: 'hash -p /usr/bin/id foo; foo' }, rules).decision, 'confirm');
    assert.equal(evaluateCommand({ command: 'hash -p /usr/bin/id foo; foo' }, { ...rules, default: 'deny' }).decision, 'deny');
  });
});

describe('built-in confirmations: options whose value is a program', () => {
  const P = 'built-in: program option';
  table([
    ['tar xf a.tar --to-command="sh -c id"', 'confirm', P],
    ['tar -cf x.tar --checkpoint=1 --checkpoint-action=exec=id .', 'confirm', P],
    ['tar -I ./evil -xf a', 'confirm', P],
    ['tar --use-compress-program=./evil -xf a', 'confirm', P],
    ['rsync -e "sh -c id" a b', 'confirm', P],
    ['rsync --rsync-path="sudo rsync" a b:', 'confirm', P],
    ['zip -T -TT ./evil a.zip x', 'confirm', P],
    ['ssh -o ProxyCommand=id host', 'confirm', P],
    ['ssh -oLocalCommand=id -oPermitLocalCommand=yes host', 'confirm', P],
    ['scp -S ./evil a b:', 'confirm', P],
    ['ssh -F ./cfg host', 'confirm', P],
    ['man -P id ls', 'confirm', P],
    ['tar -xzf a.tgz -C out', 'allow'],
    ['tar --checkpoint-action=dot -cf x .', 'allow'],
    ['rsync -avz -e ssh a b:', 'allow'],
    ['rsync -e "ssh -p 2222" a b:', 'allow'],
    ['zip -r a.zip d', 'allow'],
    ['ssh -oStrictHostKeyChecking=no host', 'allow'],
    ['scp -P 22 a b:', 'allow'],
    ['man ls', 'allow'],
  ]);
  table([
    ['TAR_OPTIONS=--to-command=id tar xf a.tar', 'confirm', 'environment: TAR_OPTIONS'],
    ['export RSYNC_RSH=./x', 'confirm', 'environment: RSYNC_RSH'],
    ['unset PROMPT_COMMAND', 'confirm', 'environment: PROMPT_COMMAND'],
    ['unset PATH', 'confirm', 'environment: PATH'],
    ['unset FOO', 'allow'],
    ['unset -f cd', 'allow'],
  ]);
});

describe('review round 3: spellings the floor and the confirmations must see through', () => {
  table([
    // POSIX character classes and extended globs
    ['rm -rf /[[:alpha:]]*', 'deny', 'built-in: protected path'],
    ['rm -rf /[[:lower:]]sr', 'deny', 'built-in: protected path'],
    ['chmod -R 0 /[[:lower:]]tc', 'deny', 'built-in: protected path'],
    ['rm -rf ~/[[:alnum:]]*', 'deny', 'built-in: protected path'],
    ['rm -rf build/[[:digit:]]*', 'allow'],
    ['rm -rf /@(usr)', 'confirm'],
    // tilde prefixes only known at run time
    ['cd / && rm -rf ~+/usr', 'confirm'],
    ['cd /dev && dd if=img of=~+/sda', 'confirm', 'built-in: raw device'],
    ['cd /dev && cat img > ~+/sda', 'confirm', 'built-in: raw device'],
    // copying into /dev, moving with -t
    ['cp sda /dev/', 'deny', 'built-in: raw device'],
    ['cp -t /dev sda', 'deny', 'built-in: raw device'],
    ['cp --target-directory=/dev sda', 'deny', 'built-in: raw device'],
    ['cp x /dev/shm/', 'allow'],
    ['mv -t /x /usr', 'deny', 'built-in: protected path'],
    ['mv --target-directory=/x /etc', 'deny', 'built-in: protected path'],
    ['mv -t dir a b', 'allow'],
    // every process
    ['kill -9 -01', 'deny', 'built-in: kill all'],
    ['kill -9 " -1"', 'deny', 'built-in: kill all'],
    ["pkill -9 '[^x]'", 'deny', 'built-in: kill all'],
    ['kill -9 -12', 'allow'],
    ['pkill s', 'allow'],
    // git options that run a command
    ["git rebase -x 'id' HEAD~1", 'confirm', 'built-in: program option'],
    ["git ls-remote --upload-pack='id;' .", 'confirm', 'built-in: program option'],
    ['git clone -u ./evil repo', 'confirm', 'built-in: program option'],
    ["git grep -O'id' x", 'confirm', 'built-in: program option'],
    ["git bisect run sh -c 'id'", 'confirm', 'built-in: program option'],
    ["git filter-branch --tree-filter 'id' HEAD", 'confirm', 'built-in: program option'],
    ["git submodule foreach 'id'", 'confirm', 'built-in: program option'],
    ["git config core.pager 'id'", 'confirm', 'built-in: program option'],
    ['git config user.name x', 'allow'],
    ['git rebase -i HEAD~3', 'allow'],
    // holdfast's configuration behind a glob or a run-time prefix
    ['echo x > ~/.holdfas[t]/config.yaml', 'confirm', 'built-in: holdfast config'],
    ['rm -rf ~/.holdfas?', 'confirm', 'built-in: holdfast config'],
    ['cp x "$PWD/.holdfast.yaml"', 'confirm', 'built-in: holdfast config'],
    ['cat ~/.holdfas?/config.yaml', 'allow'],
  ]);
});

describe('review round 4: folders, find, chmod, /proc/self/root, init, scheduled jobs', () => {
  table([
    ['shopt -s cdable_vars; x=/; cd x && rm -rf usr', 'confirm', 'built-in: shell hook'],
    ['shopt -s cdspell', 'confirm', 'built-in: shell hook'],
    ['shopt -s globstar', 'allow'],
    ['printf -v CD""PATH /', 'confirm', 'environment: CDPATH'],
    ['declare "CD""PATH=/"', 'confirm', 'environment: CDPATH'],
    ['export "PROMPT_COMMAND=id"', 'confirm', 'environment: PROMPT_COMMAND'],
    ['builtin -- cd / && rm -rf usr', 'deny', 'built-in: protected path'],
    ['f(){ rm -rf usr; }; cd / && f', 'deny', 'built-in: protected path'],
    ['chroot / rm -rf usr', 'deny', 'built-in: protected path'],
    ['tmux new-session -d -c / rm -rf usr', 'deny', 'built-in: protected path'],
    ['systemd-run rm -rf usr', 'deny', 'built-in: protected path'],
    ['systemd-run -p WorkingDirectory=/ rm -rf usr', 'deny', 'built-in: protected path'],
    ['systemd-run -p MemoryMax=1G --property=WorkingDirectory=/ rm -rf usr', 'deny', 'built-in: protected path'],
    ['systemd-run --unit job rm -rf usr', 'deny', 'built-in: protected path'],
    ['systemd-run -d rm -rf usr', 'allow'],
    ['systemd-run --user rm -rf usr', 'allow'],
    ['find -- / -delete', 'deny', 'built-in: protected path'],
    ['find -O3 -D tree / -delete', 'deny', 'built-in: protected path'],
    ['find -D tree -L / -delete', 'deny', 'built-in: protected path'],
    ['find -files0-from l -delete', 'confirm'],
    ['find . -maxdepth 0 -fprintf /proc/sysrq-trigger b', 'deny', 'built-in: raw device'],
    ['find . -fprint /dev/sda', 'deny', 'built-in: raw device'],
    ['find . -fprint out.txt', 'allow'],
    ['chmod -R -w /etc', 'deny', 'built-in: protected path'],
    ['chmod -R -rwx ~', 'deny', 'built-in: protected path'],
    ['chown -R --reference=x /etc', 'deny', 'built-in: protected path'],
    ['chmod -R -v 755 build', 'allow'],
    ['rm -rf /proc/self/root/etc', 'deny', 'built-in: protected path'],
    ['echo x > /proc/1/root/dev/sda', 'deny', 'built-in: raw device'],
    ['rsync -a --remove-source-files /usr/ x', 'deny', 'built-in: protected path'],
    ['rsync -a --remove-source-files build/ x', 'allow'],
    ['kill -INT 1', 'deny', 'built-in: kill all'],
    ['kill -s PWR 1', 'deny', 'built-in: kill all'],
    ['kill -0 1', 'allow'],
    ['xargs -I{} find {} -delete', 'confirm'],
    ['xargs -I{} mv {} /tmp/a', 'confirm'],
    ['xargs -I{} echo {}', 'allow'],
    ["at now <<< 'rm -rf /usr'", 'deny', 'built-in: protected path'],
    ['echo ls | at now', 'confirm'],
    ['at -l', 'allow'],
    ['echo "* * * * * id" | crontab -', 'confirm', 'built-in: shell hook'],
    ['crontab -l', 'allow'],
  ]);
});

describe('built-in floor: properties', () => {
  const rmName = fc.constantFrom('rm', '/bin/rm', '/usr/bin/rm', '"rm"', '\\rm', "'r'm", 'command rm', 'sudo rm', 'env rm', 'busybox rm', 'nice -n 5 rm');
  const recursive = fc.constantFrom('-r', '-R', '--recursive', '--rec', '--r');
  const extra = fc.subarray(['-f', '--force', '-v', '-i', '-d', '-I', '--verbose', '--one-file-system', '--no-preserve-root']);
  // the options in any order: the recursive one plus any of the others
  const options = fc.tuple(recursive, extra).chain(([r, more]) => fc.shuffledSubarray([r, ...more], { minLength: 1 + more.length }));
  const target = fc.constantFrom('/', '//', '/.', '/*', '~', '~/', '~/..', '~/*', '~/.*', '"$HOME"', '${HOME}', `~${USER}`, HOME, `${HOME}/`, '/usr', '/etc/', '/home', '/var/*', '/usr/lib', '/tmp/../usr', '/bin', '/b*');
  it('no spelling of a recursive rm of a protected folder gets through, even with no rules', () => {
    fc.assert(
      fc.property(rmName, options, target, fc.boolean(), (rm, opts, t, dashdash) => {
        const cmd = `${rm} ${opts.join(' ')} ${dashdash ? '-- ' : ''}${t}`;
        return evaluateCommand({ command: cmd }, NONE).decision === 'deny';
      }),
      { numRuns: 400 },
    );
  });
  it('short flags cluster in any order: -rf, -fr, -Rfv, -vfR …', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(['R', 'f', 'v', 'd', 'i'], { minLength: 1 }), fc.constantFrom('/', '~'), (letters, t) => {
        if (!letters.includes('R')) return true;
        return evaluateCommand({ command: `rm -${letters.join('')} ${t}` }, NONE).decision === 'deny';
      }),
      { numRuns: 200 },
    );
  });
});
