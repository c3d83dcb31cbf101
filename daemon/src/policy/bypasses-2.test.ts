import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_COMMAND_RULES } from '@holdfast/shared/config';
import { evaluateCommand, type PolicyDecision } from './commands.js';

/**
 * Review round 6 (the earlier break-in review's remaining findings): here-documents fed to shells
 * and interpreters, abbreviated long options, kill pid spellings, paths through descriptors,
 * `tar --remove-files`, and options that run programs. Every row is judged by the pure evaluator
 * (nothing here runs). NONE holds no rules at all, so what decides is built in; DEFAULTS is the
 * generated config.
 */
const NONE = { default: 'allow' as const, deny: [], confirm: [], allow: [] };
const DEFAULTS = { default: 'allow' as const, deny: [...DEFAULT_COMMAND_RULES.deny], confirm: [...DEFAULT_COMMAND_RULES.confirm], allow: [] };

type Rules = Parameters<typeof evaluateCommand>[1];
type Row = [string, PolicyDecision, string?];

function table(rows: Row[], opts: { rules?: Rules; cwd?: string | null } = {}): void {
  for (const [command, want, rule] of rows) {
    it(`${JSON.stringify(command)} → ${want}${rule ? ` (${rule})` : ''}`, () => {
      const v = evaluateCommand({ command, cwd: opts.cwd ?? null, sessionShell: false }, opts.rules ?? NONE);
      assert.equal(v.decision, want, v.reason);
      if (rule) assert.ok(v.segments.some((s) => s.rule === rule), `${rule} not among ${v.segments.map((s) => s.rule).join(', ')}`);
    });
  }
}

const P = 'built-in: protected path';
const RAW = 'built-in: raw device';
const KILL = 'built-in: kill all';

describe('review round 6: a shell or interpreter fed a here-document or here-string', () => {
  table([
    ["bash <<'EOF'\nrm -rf /\nEOF", 'deny', P],
    ['sh <<< \'rm -rf /\'', 'deny', P],
    ["bash -s <<'EOF'\nrm -rf ~\nEOF", 'deny', P],
    ['bash <<EOF\nrm -rf $D\nEOF', 'confirm'],
    ['sh <<< "rm -rf $D"', 'confirm'],
    ["python3 - <<'EOF'\nimport os\nos.system('id')\nEOF", 'confirm'],
    ['python3 - <<EOF\nprint("$X")\nEOF', 'confirm'],
    ["python3 <<< 'import os; os.system(\"id\")'", 'confirm'],
    ["node <<< 'require(\"child_process\").execSync(\"id\")'", 'confirm'],
    ["perl <<'EOF'\nsystem('id');\nEOF", 'confirm'],
    ["ruby <<< 'system(\"id\")'", 'confirm'],
    ["perl /dev/stdin <<'EOF'\nsystem('id');\nEOF", 'confirm', 'built-in: interpreter code'],
    ["node - <<'EOF'\nconsole.log(1)\nEOF", 'allow'],
    ["python3 - <<'EOF'\nprint(1)\nEOF", 'allow'],
    ['python3 <<EOF\nprint(1)\nEOF', 'allow'],
    ['bash <<EOF\necho $X\nEOF', 'confirm'],
    ['bash <<EOF\necho `date`\nEOF', 'confirm'],
    ['sh <<-EOF\n\techo "${X}"\n\tEOF', 'confirm'],
    ['bash <<EOF\necho hi\nEOF', 'allow'],
    ["bash <<\\EOF\necho $X\nEOF", 'allow'],
    ["python3 - < script.py", 'confirm'],
    ["cat x.py | python3", 'confirm'],
    ["cat x.py | python3 -", 'confirm'],
    ['python3', 'allow'],
    ['python3 x.py', 'allow'],
    ['node build.js --prod', 'allow'],
    ["bash <<'EOF'\necho hi\nEOF", 'allow'],
    ["cat <<'EOF'\nrm -rf /\nEOF", 'allow'],
  ]);
});

describe('review round 6: an abbreviated long option is the option it abbreviates', () => {
  table([
    ['rm --recur --forc /', 'deny', P],
    ['rm --rec --no-pres /usr', 'deny', P],
    ['chmod --recu 000 /etc', 'deny', P],
    ["tar --to-com='sh -c id' -xf a.tar", 'confirm'],
    ['tar --to-c=id -xf a.tar', 'confirm'],
    ['tar --use-comp=/tmp/x -cf a.tar d', 'confirm'],
    ['tar --rsh-c=/tmp/x -cf h:a.tar d', 'confirm'],
    ['tar --info-s=/tmp/x -cf a.tar d', 'confirm'],
    ['tar --new-vol=/tmp/x -cf a.tar d', 'confirm'],
    ['tar --checkpoint-act=exec=id -cf a.tar d', 'confirm'],
    ['rsync --rs=/tmp/x a h:b', 'confirm'],
    ['rsync --rsync-p=/tmp/x a h:b', 'confirm'],
    ['sed --in-pl s/a/b/ /dev/sda', 'deny', RAW],
    ['zip --unzip-c=/tmp/x -T a.zip f', 'confirm'],
    ['man --pag=/tmp/x ls', 'confirm'],
    ['git rebase --exe=id main', 'confirm'],
    ['git fetch --upload-p=id origin', 'confirm'],
    ['git push --receive-p=id origin', 'confirm'],
    ['git difftool --extc=id', 'confirm'],
    ['git --exec-pa=/tmp status', 'confirm'],
    ["su --comm='rm -rf /'", 'deny', P],
    ["env --split-s='rm -rf /'", 'deny', P],
    ['tar --to-stdout -xf a.tar', 'allow'],
    ['rm --verb a.txt', 'allow'],
  ]);
  describe('with the generated rules', () => {
    table([
      ['git push --forc', 'confirm'],
      ['git clean --forc -d', 'confirm'],
    ], { rules: DEFAULTS });
  });
});

describe('review round 6: the read-only list reads abbreviated options too (default: confirm)', () => {
  const CONFIRM = { default: 'confirm' as const, deny: [], confirm: [], allow: [] };
  table([
    ['sort --out=/tmp/x f', 'confirm'],
    ['sort --compress-p=/tmp/x f', 'confirm'],
    ['date --se=2020-01-01', 'confirm'],
    ['date -us 2020-01-01', 'confirm'],
    ['git diff --ou=/tmp/x', 'confirm'],
    ['git log --ext -p', 'confirm'],
    ['git show --textc HEAD', 'confirm'],
    ['rg --pr=/tmp/x foo', 'confirm'],
    ['sort -r f', 'allow'],
    ['date -u', 'allow'],
    ['git diff --stat', 'allow'],
    ['rg --pcre2 foo', 'allow'],
  ], { rules: CONFIRM });
});

describe('review round 6: sudo -u is judged as its inner command, and a rule on sudo still fires', () => {
  const SUDO = { default: 'allow' as const, deny: [], confirm: ['sudo'], allow: [] };
  table([
    ['sudo -u x ls', 'confirm'],
    ['sudo --us=x ls', 'confirm'],
  ], { rules: SUDO });
  table([
    ["sudo -u x python3 -c 'import os; os.system(\"id\")'", 'confirm', 'built-in: interpreter code'],
    ['sudo --us=x rm --recur /', 'deny', P],
    ["sudo -s <<< 'rm -rf /'", 'deny', P],
    ["sudo --shell <<< 'rm -rf /'", 'deny', P],
    ["sudo --sh <<< 'rm -rf /'", 'deny', P],
    ["sudo --login <<< 'rm -rf /'", 'deny', P],
    ["su <<< 'rm -rf /'", 'deny', P],
    ["su - root <<'EOF'\nrm -rf /\nEOF", 'deny', P],
    ["pkexec <<< 'rm -rf /'", 'deny', P],
    ['echo x | sudo -s', 'confirm'],
    ['sudo -s < cmds.txt', 'confirm'],
    ["sudo -u x su --comm='rm -rf /'", 'deny', P],
  ]);
});

describe('review round 6: kill pids in any spelling', () => {
  table([
    ['kill -9 $((1))', 'deny', KILL],
    ['kill -9 $(( -1 ))', 'deny', KILL],
    ['kill -9 -- $((0-1))', 'deny', KILL],
    ['kill -s KILL -- -1', 'deny', KILL],
    ['kill -9 -0x1', 'deny', KILL],
    ['kill -9 0x1', 'deny', KILL],
    ["kill -9 ' -1'", 'deny', KILL],
    ['kill -9 +1', 'deny', KILL],
    ['kill -9 -01', 'deny', KILL],
    ['kill -KILL -1', 'deny', KILL],
    ['kill -9 $((2-1))', 'deny', KILL],
    ['kill -9 $[1]', 'deny', KILL],
    ['kill -HUP "$(( 2#1 ))"', 'deny', KILL],
    ['kill -9 $(( (3-4) * 1 ))', 'deny', KILL],
    ['kill -9 $((x-1))', 'allow'],
    ['kill -9 -$((1))', 'deny', KILL],
    ['kill -9 "-$(( 1 ))"', 'deny', KILL],
    ['kill -9 -0$((1))', 'deny', KILL],
    ['p=-1; kill -9 $p', 'deny', KILL],
    ['kill -9 -$((1234))', 'allow'],
    ['kill -9 1234', 'allow'],
    ['kill -0 1', 'allow'],
    ['kill -9 $((1234))', 'allow'],
  ]);
});

describe('review round 6: writes and deletes through descriptor and /proc paths', () => {
  table([
    ['rm -rf /dev/fd/3/ 3</usr', 'confirm'],
    ['rm -rf /proc/self/fd/3/* 3</usr', 'confirm'],
    ['exec 3</etc; rm -rf /dev/fd/3/', 'confirm'],
    ['echo x > /dev/fd/3 3</dev/sda', 'confirm'],
    ['echo x > /proc/self/fd/7', 'confirm'],
    ['rm -rf /proc/1/cwd/etc', 'confirm'],
    ['rm -rf /proc/1/root/etc', 'deny', P],
    ['echo b > /proc/1/root/proc/sysrq-trigger', 'deny', RAW],
    ['rm -rf /dev/fd/3/.. 3</usr/bin', 'confirm'],
    ['rm -rf //dev/./fd/3/ 3</usr', 'confirm'],
    ['rm -rf /proc/1/fd/0/', 'confirm'],
    ['shred /proc/thread-self/fd/5', 'confirm'],
    ['echo x > /proc/1/cwd/f', 'confirm'],
    ['cp x /proc/self/root/dev/sda', 'deny', RAW],
    ['mv /proc/1/root/etc /tmp/e', 'deny', P],
    ['chmod -R 777 /proc/thread-self/root/usr', 'deny', P],
    ['tar --remove-files -cf /tmp/x.tar /proc/1/root/home', 'deny', P],
    ['echo hi > /dev/fd/2', 'allow'],
    ['echo x | tee >(cat) /dev/fd/2', 'allow'],
    ['diff <(sort a) <(sort b)', 'allow'],
    ['echo hi > /dev/stderr', 'allow'],
    ['echo hi > /dev/fd/1', 'allow'],
  ]);
});

describe('review round 6: tar --remove-files removes its inputs', () => {
  table([
    ['tar --remove-files -cf /tmp/x.tar /etc', 'deny', P],
    ['tar -cf /tmp/x.tar --remove-f ~', 'deny', P],
    ['tar -c --remove-files -f /tmp/x.tar -C / usr', 'deny', P],
    ['tar --remove-files -cf /tmp/x.tar $D', 'confirm'],
    ['tar cf /tmp/x.tar /usr --remove-files', 'deny', P],
    ['tar --remove-files --checkpoint -cf /tmp/x.tar /etc', 'deny', P],
    ['tar --remove-files -C $D -cf /tmp/x.tar etc', 'confirm'],
    ['tar --remove-files -T list.txt -cf /tmp/x.tar', 'confirm'],
    ['tar --remove-files -cf /tmp/x.tar build', 'allow'],
    ['tar --remove-files -cf /tmp/x.tar -C /tmp build', 'allow'],
    ['tar -cf /tmp/x.tar /etc', 'allow'],
  ]);
});

describe('review round 6: options that run programs', () => {
  table([
    ["git -c core.sshCommand='sh -c id' fetch", 'confirm'],
    ['git -c core.fsmonitor=/tmp/x status', 'confirm'],
    ['git -c core.hooksPath=/tmp/h commit -m x', 'confirm'],
    ["git -c alias.x='!id' x", 'confirm'],
    ['git --exec-path=/tmp status', 'confirm'],
    ['GIT_SSH_COMMAND=id git fetch', 'confirm'],
    ['GIT_EXTERNAL_DIFF=/tmp/x git diff', 'confirm'],
    ['git difftool -x id', 'confirm'],
    ['git config --global core.editor vim', 'confirm'],
    ['ssh -o LocalCommand=id -o PermitLocalCommand=yes h', 'confirm'],
    ['ssh -oProxyCommand=id h', 'confirm'],
    ['ssh -o KnownHostsCommand=id h', 'confirm'],
    ['ssh -F /tmp/cfg h', 'confirm'],
    ['scp -S /tmp/x a h:b', 'confirm'],
    ['sftp -S /tmp/x h', 'confirm'],
    ['sftp -D /tmp/x h', 'confirm'],
    ['scp -D /tmp/x a h:b', 'confirm'],
    ['ssh -o Include=/tmp/cfg h', 'confirm'],
    ['ssh -o PKCS11Provider=/tmp/x.so h', 'confirm'],
    ['ssh -o SecurityKeyProvider=/tmp/x.so h', 'confirm'],
    ['ssh -I /tmp/x.so h', 'confirm'],
    ['GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=id git log', 'confirm'],
    ["GIT_CONFIG_PARAMETERS=\"'core.pager'='id'\" git log", 'confirm'],
    ['GIT_CONFIG_GLOBAL=/tmp/cfg git log', 'confirm'],
    ["xargs -i sh -c '{}'", 'confirm'],
    ["xargs --replace sh -c '{}'", 'confirm'],
    ["xargs --repl={} sh -c '{}'", 'confirm'],
    ['zip -rm /tmp/x.zip /etc', 'deny', P],
    ['zip --move -r /tmp/x.zip ~', 'deny', P],
    ['zip -m /tmp/x.zip $D', 'confirm'],
    ['find . | zip -m@ /tmp/x.zip', 'confirm'],
    ['zip -rm /tmp/x.zip build', 'allow'],
    ['zip -r /tmp/x.zip /etc', 'allow'],
    ["su -c 'rm -rf /'", 'deny', P],
    ["su root -c 'rm -rf /'", 'deny', P],
    ['sudo -u x rm -rf /', 'deny', P],
    ["xargs -I{} sh -c '{}'", 'confirm'],
    ["find . -exec rm -rf / ';'", 'deny', P],
    ["find . -ok sh -c 'rm -rf /' ';'", 'deny', P],
    ["find . -execdir sh -c \"$X\" ';'", 'confirm'],
    ["awk 'BEGIN{system(\"id\")}'", 'confirm'],
    ["awk '{print | \"sh\"}' f", 'confirm'],
    ["awk '{print > \"/etc/passwd\"}' f", 'confirm'],
    ["gawk 'BEGIN{\"id\" | getline x}'", 'confirm'],
    ["perl -e 'system(\"id\")'", 'confirm'],
    ['perl -e \'`id`\'', 'confirm'],
    ["python3 -c 'import os; os.system(\"id\")'", 'confirm'],
    ["python3 -c 'import subprocess; subprocess.run([\"id\"])'", 'confirm'],
    ["ruby -e 'system(\"id\")'", 'confirm'],
    ["node -e 'require(\"child_process\").execSync(\"id\")'", 'confirm'],
    ["python3 -Ic 'import subprocess'", 'confirm'],
    ["python3 -Ic 'import os'", 'allow'],
    ['python3 -c "$CODE"', 'confirm'],
    ["python3 -c \"open('x','w').write('y')\"", 'confirm'],
    ["python3 -c '__builtins__.__dict__[\"ev\"+\"al\"](x)'", 'confirm'],
    ["python3 -c 'getattr(__import__(\"o\"+\"s\"), \"system\")(\"id\")'", 'confirm'],
    ["node -e 'process.getBuiltinModule(\"child_process\")'", 'confirm'],
    ["node -e \"globalThis['req'+'uire']\"", 'confirm'],
    ["node --eval='require(\"fs\").rmSync(\"x\")'", 'confirm'],
    ["perl -e 's/x/id/e'", 'confirm'],
    ["perl -lne 'print qx(id)'", 'confirm'],
    ["php -r 'system(\"id\");'", 'confirm'],
    ["gawk -l ordchr 'BEGIN{}'", 'confirm'],
    ["awk -e 'BEGIN{system(\"id\")}'", 'confirm'],
    ["xargs python3 -c 'import subprocess'", 'confirm'],
    ["sudo python3 -c 'import os; os.system(\"id\")'", 'confirm'],
    ["lua -e 'os.execute(\"id\")'", 'confirm'],
    ["Rscript -e 'print(1)'", 'confirm'],
    ["julia -e 'run(`id`)'", 'confirm'],
    ["bun -e 'Bun.spawn([\"id\"])'", 'confirm'],
    ["expect -c 'spawn id'", 'confirm'],
    ["deno eval 'Deno.run({cmd:[\"id\"]})'", 'confirm'],
    ['lua script.lua', 'allow'],
    ['bun run build', 'allow'],
    ["python3 -c 'import json,sys; print(json.load(sys.stdin)[\"version\"])' < package.json", 'allow'],
    ["python3 -c \"print(open('package.json').read())\"", 'allow'],
    ["python3 -c 'print(1)' 'import os'", 'allow'],
    ["node -p 'require(\"./package.json\").version'", 'allow'],
    ["node -e 'console.log(process.version, process.platform)'", 'allow'],
    // What agents run every day stays allowed (reading, printing, literal requires)…
    ["node -e \"console.log(require('hf-local-pkg'))\"", 'allow'],
    ["node -e \"console.log(require('fs').readFileSync('package.json', 'utf8').length)\"", 'allow'],
    ["python3 -c 'import sys; print(sys.stdin.isatty(), sys.stdout.isatty())'", 'allow'],
    ["python3 -c \"import os; print(os.getcwd(), os.environ.get('HOME'), ', '.join(os.listdir('.')))\"", 'allow'],
    ["python3 -c \"print(open('a.txt', 'rb').read()[:10])\"", 'allow'],
    // …while a computed module name, a write mode or an indirect name asks.
    ["node -e \"require('chi'+'ld_process')\"", 'confirm'],
    ["node -e \"process['bind'+'ing']('spawn_sync')\"", 'confirm'],
    ["node -e \"import('node:'+x)\"", 'confirm'],
    ["python3 -c \"open('/etc/holdfast-probe', 'w')\"", 'confirm'],
    ["python3 -c \"import os; os.remove('x')\"", 'confirm'],
    ["python3 -c \"import shutil; shutil.rmtree('x')\"", 'confirm'],
    ["perl -ne 'print if /foo/' f", 'allow'],
    ["perl -pi -e 's/a/b/g' f.txt", 'allow'],
    ["ruby -e 'puts 1+1'", 'allow'],
    ["php -r 'echo PHP_VERSION;'", 'allow'],
    ["awk -f prog.awk f", 'allow'],
    ["awk -v x=1 '{print x}' f", 'allow'],
    ["awk '$1 || $2 {print}' f", 'allow'],
    ["awk '{print $1}' f", 'allow'],
    ["awk '/error|warn/' log", 'allow'],
    ["awk '$0 ~ /a|b/ {n++} END {print n}' f", 'allow'],
    ["awk '/x/ {print | \"sh\"}' f", 'confirm'],
    ["awk -F: '$3 > 1000 {print $1}' /etc/passwd", 'allow'],
    ['git -c user.name=x commit -m y', 'allow'],
    ['ssh -o ConnectTimeout=5 h uptime', 'allow'],
  ]);
});
