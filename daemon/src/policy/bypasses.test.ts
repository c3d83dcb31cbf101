import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { describe, it } from 'node:test';
import { DEFAULT_COMMAND_RULES } from '@holdfast/shared/config';
import { evaluateCommand, type PolicyDecision } from './commands.js';
import { holdfastHome } from './paths.js';

/**
 * Review round 5 (break-in review): spellings that got past the policy. Every row is judged by the
 * pure evaluator (nothing here runs). NONE holds no rules at all, so what decides is built in;
 * DEFAULTS is the generated config.
 */
const NONE = { default: 'allow' as const, deny: [], confirm: [], allow: [] };
const DEFAULTS = { default: 'allow' as const, deny: [...DEFAULT_COMMAND_RULES.deny], confirm: [...DEFAULT_COMMAND_RULES.confirm], allow: [] };
const HOME = homedir();
const HF = holdfastHome();

type Rules = Parameters<typeof evaluateCommand>[1];
type Row = [string, PolicyDecision, string?];

function table(rows: Row[], opts: { rules?: Rules; cwd?: string | null; sessionShell?: boolean } = {}): void {
  for (const [command, want, rule] of rows) {
    it(`${JSON.stringify(command)} → ${want}${rule ? ` (${rule})` : ''}`, () => {
      const v = evaluateCommand({ command, cwd: opts.cwd ?? null, sessionShell: opts.sessionShell === true }, opts.rules ?? NONE);
      assert.equal(v.decision, want, v.reason);
      if (rule) assert.ok(v.segments.some((s) => s.rule === rule), `${rule} not among ${v.segments.map((s) => s.rule).join(', ')}`);
    });
  }
}

const CODE = 'built-in: run-time code';

describe('review round 5: expansions that run code need confirmation', () => {
  table([
    ['(( a[$(id)] ))', 'confirm', CODE],
    ['echo $(( x[$(id)] ))', 'confirm', CODE],
    ["(( a['$(id)'] ))", 'confirm', CODE],
    ['(( a[`id`] ))', 'confirm', CODE],
    ["let 'a[$(id)]'", 'confirm', CODE],
    ['let "a[\\$(id)]"', 'confirm', CODE],
    ["[[ -v 'a[$(id)]' ]]", 'confirm', CODE],
    ["[ -v 'a[$(id)]' ]", 'confirm', CODE],
    ["test -v 'a[$(id)]'", 'confirm', CODE],
    ["[[ $x -eq 'a[$(id)]' ]]", 'confirm', CODE],
    ["[[ 'a[$(id)]' -lt 3 ]]", 'confirm', CODE],
    ["declare -i n='a[$(id)]'", 'confirm', CODE],
    ["local -i n='a[$(id)]'", 'confirm', CODE],
    ["printf -v 'a[$(id)]' x", 'confirm', CODE],
    ["read 'a[$(id)]' <<< 1", 'confirm', CODE],
    ["read -a 'a[$(id)]' <<< 1", 'confirm', CODE],
    ["mapfile 'a[$(id)]' < f", 'confirm', CODE],
    ["unset 'a[$(id)]'", 'confirm', CODE],
    ["x='a[$(id)]'; (( x ))", 'confirm', CODE],
    ['a[$(id)]=1', 'confirm', CODE],
    ['echo ${a[$(id)]}', 'confirm', CODE],
    ['echo ${x@P}', 'confirm', CODE],
    ['echo "${PS1@P}"', 'confirm', CODE],
    ['eval \'echo ${x@P}\'', 'confirm', CODE],
    // still allowed: the inner command is judged like any other; plain arithmetic
    ['echo $(( $(wc -l < f) + 1 ))', 'allow'],
    ['(( i++ ))', 'allow'],
    ['for ((i=0; i<3; i++)); do echo $i; done', 'allow'],
    ['(( a[i+1] = 2 ))', 'allow'],
    ['echo ${a[$((i+1))]}', 'allow'],
    ['[[ $x -eq 3 ]]', 'allow'],
    ['[[ -v HOME ]]', 'allow'],
    ['read -r line', 'allow'],
    ["printf -v out '%s' x", 'allow'],
    ['echo ${x@Q}', 'allow'],
    ['declare -i n=3', 'allow'],
    ['(( $(id -u) == 0 ))', 'allow'],
    ['LOG_PREFIX="[$(date +%T)]"; echo "[$(date)] started"', 'allow'],
  ]);
});

describe('review round 5: the floor sees every spelling of a protected path', () => {
  const RAW = 'built-in: raw device';
  const P = 'built-in: protected path';
  const CFG = 'built-in: holdfast config';
  table([
    // kernel control files and devices
    ['echo b > /proc//sysrq-trigger', 'deny', RAW],
    ['echo b > /proc/./sysrq-trigger', 'deny', RAW],
    ['echo b > /proc/sys/../sysrq-trigger', 'deny', RAW],
    ['echo b > "/proc/"sysrq-"trigger"', 'deny', RAW],
    ['echo b >| /proc/sysrq-trigger', 'deny', RAW],
    ['echo b &> /proc/sysrq-trigger', 'deny', RAW],
    ['echo b >> /proc/sysrq-trigger', 'deny', RAW],
    ['echo b 1<> /proc/sysrq-trigger', 'deny', RAW],
    ['tee /proc/sysrq-trigger <<< b', 'deny', RAW],
    ['tee -a /proc/sysrq-trigger <<< b', 'deny', RAW],
    ['t=/proc/sysrq-trigger; echo b > $t', 'deny', RAW],
    ['t=/proc/sysrq; echo b > "${t}-trigger"', 'deny', RAW],
    ['export T=/dev/sda; cat img > "$T"', 'deny', RAW],
    ['d=/dev; dd if=img of=$d/sda', 'deny', RAW],
    ['for f in /dev/sda; do cat img > "$f"; done', 'deny', RAW],
    ['echo 1 > /proc/sys/kernel/./sysrq', 'deny', RAW],
    ['echo mem > /sys/power//state', 'deny', RAW],
    ['echo mem | tee /sys/power/state', 'deny', RAW],
    ['cp img /dev/./sda', 'deny', RAW],
    ['install img /dev/sda', 'deny', RAW],
    ['truncate -s 0 /dev/sda', 'deny', RAW],
    ['ln -sf /dev/null /dev/sda', 'deny', RAW],
    ["sed -i 's/a/b/' /dev/sda", 'deny', RAW],
    ['cd / && echo b > proc/sysrq-trigger', 'deny', RAW],
    ['cd /proc && echo b > /proc/self/cwd/sysrq-trigger', 'deny', RAW],
    ['echo b > /proc/self/cwd/sysrq-trigger', 'confirm', RAW],
    // protected folders
    ['d=/usr; rm -rf $d', 'deny', P],
    ['d=/; rm -rf "$d"', 'deny', P],
    ['for d in /etc /usr; do rm -rf "$d"; done', 'deny', P],
    ['rm -rf /usr/.', 'deny', P],
    ['rm -rf /usr/lib/../', 'deny', P],
    ['rm -rf "/"usr', 'deny', P],
    ['rm -rf ~root/', 'deny', P],
    ['cd /etc && rm -rf /proc/self/cwd', 'deny', P],
    ['rm -rf /proc/self/cwd/..', 'confirm', P],
    ['rm -rf /proc/self/root/../etc', 'deny', P],
    ['rm -rf /proc/1/task/1/root/../usr', 'deny', P],
    ['cd /usr/lib/x && rm -rf /proc/thread-self/cwd/..', 'deny', P],
    ['rm -rf /proc/1234/cwd', 'confirm', P],
    // holdfast's own home, config and run folder
    [`echo x > ${HF}//config.yaml`, 'confirm', CFG],
    [`echo x > ${HF}/./config.yaml`, 'confirm', CFG],
    [`echo x > ${HF}/run/../token`, 'confirm', CFG],
    [`rm -rf ${HF}/run/.`, 'confirm', CFG],
    [`rm -rf ${HF}/.`, 'confirm', CFG],
    ['h=.holdfast; echo x > ~/$h/config.yaml', 'confirm', CFG],
    ['echo x > "$HOLDFAST_HOME/config.yaml"', 'confirm', CFG],
    ['cp x "${HOLDFAST_HOME}"/token', 'confirm', CFG],
    [`truncate -s 0 ${HF}/token`, 'confirm', CFG],
    [`dd if=x of=${HF}/config.yaml`, 'confirm', CFG],
    [`ln -sf x ${HF}/config.yaml`, 'confirm', CFG],
    [`sed -i s/a/b/ ${HF}/config.yaml`, 'confirm', CFG],
    [`install -m 600 x ${HF}/token`, 'confirm', CFG],
    [`tee -a ${HF}/config.yaml <<< x`, 'confirm', CFG],
    [`echo x &>> ${HF}/logs/audit.jsonl`, 'confirm', CFG],
    // still allowed
    ['d=build; rm -rf "$d"', 'confirm'],
    ['echo x > /dev/null', 'allow'],
    ['echo x > "$OUT"', 'allow'],
    [`cat ${HF}/config.yaml`, 'allow'],
  ]);
});

describe('review round 5: writes to the prompt hook holdfast relies on need confirmation', () => {
  table([
    ['declare PROMPT_COMMAND=id', 'confirm'],
    ['typeset PROMPT_COMMAND=id', 'confirm'],
    ['f() { local PROMPT_COMMAND=id; }', 'confirm'],
    ['export PROMPT_COMMAND=id', 'confirm'],
    ['readonly PROMPT_COMMAND=', 'confirm'],
    ['printf -v PROMPT_COMMAND id', 'confirm'],
    ['printf -v PROMPT_COMMAND[1] id', 'confirm'],
    ['read PROMPT_COMMAND <<< id', 'confirm'],
    ['mapfile PROMPT_COMMAND <<< id', 'confirm'],
    ['readarray -t PROMPT_COMMAND < f', 'confirm'],
    ['PROMPT_COMMAND[1]=id', 'confirm'],
    ['PROMPT_COMMAND+=(id)', 'confirm'],
    ['PROMPT_COMMAND+=";id"', 'confirm'],
    ['PS0=x', 'confirm'],
    ['PS1=\'$(id)\'', 'confirm'],
    ['unset -v PROMPT_COMMAND', 'confirm'],
    ['unset PS1', 'confirm'],
    ["trap 'echo' DEBUG", 'confirm'],
    ['trap - DEBUG', 'confirm'],
    ["trap '' RETURN", 'confirm'],
    ['trap true debug', 'confirm'],
    ['trap -- "" SIGDEBUG', 'confirm'],
    ['trap "echo" ERR', 'confirm'],
    ['set +o functrace', 'confirm'],
    ['set -T', 'confirm'],
    ['set +T', 'confirm'],
    ['shopt -s extdebug', 'confirm'],
    ['declare -n ref=PROMPT_COMMAND', 'confirm'],
    ["declare -n ref='PROMPT_COMMAND[0]'", 'confirm'],
    ['declare -n ref; ref=PROMPT_COMMAND', 'confirm'],
    ['echo "PROMPT_COMMAND=id" > f; source f', 'confirm'],
    ['printf x > ./f.sh && . ./f.sh', 'confirm'],
    ['cp x f; source f', 'confirm'],
    ["source <(echo 'PROMPT_COMMAND=id')", 'confirm'],
    ["eval 'PROMPT_COMMAND=id'", 'confirm'],
    ["eval 'trap - DEBUG'", 'confirm'],
    ["eval 'declare -n r=PROMPT_COMMAND'", 'confirm'],
    // the hook's own functions and variables (guardian/src/shell-integration.ts)
    ['__hf_d() { :; }', 'confirm', 'built-in: prompt hook'],
    ['unset -f __hf_p', 'confirm', 'built-in: prompt hook'],
    ['__hf_envf=/tmp/x', 'confirm'],
    ['printf -v __hf_n x', 'confirm'],
    ['local() { :; }', 'deny'], // the parser refuses it
    ['unset() { :; }', 'confirm', 'built-in: prompt hook'],
    ['return() { :; }', 'confirm', 'built-in: prompt hook'],
    ['function printf { :; }', 'confirm', 'built-in: prompt hook'],
    // still allowed
    ['trap -p', 'allow'],
    ["trap 'rm -f /tmp/x.$$' EXIT", 'allow'],
    ['set -e', 'allow'],
    ['set -o pipefail', 'allow'],
    ['source ./venv/bin/activate', 'allow'],
    ['declare -n ref=arr', 'allow'],
    ['unset -f cd', 'allow'],
    ['greet() { echo hi; }; greet', 'allow'],
    ['export NODE_ENV=test', 'allow'],
  ]);
});

describe('review round 5: ending the session through eval and quoting', () => {
  const E = 'built-in: ends the session';
  table(
    [
      ['eval exit', 'confirm', E],
      ["eval 'exec bash'", 'confirm', E],
      ['builtin eval exit', 'confirm', E],
      ['command eval logout', 'confirm', E],
      ["eval 'eval exit'", 'confirm', E],
      ["$'\\x65xit'", 'confirm', E],
      ["$'\\145xit' 0", 'confirm', E],
      ['"ex"it', 'confirm', E],
      ['e\\xit', 'confirm', E],
      ["eval $'\\x65xit'", 'confirm', E],
      ["source /dev/stdin <<< 'exit'", 'confirm', E],
      ["trap exit INT", 'confirm', E],
      // a child shell or a subshell still does not end the session
      ["bash -c 'eval exit'", 'allow'],
      ['( eval exit )', 'allow'],
      ['echo $(eval exit)', 'allow'],
    ],
    { sessionShell: true },
  );
});

describe('review round 5: power actions through every front end', () => {
  const PW = 'built-in: power';
  table([
    ['systemctl suspend', 'confirm', PW],
    ['systemctl hibernate', 'confirm', PW],
    ['systemctl hybrid-sleep', 'confirm', PW],
    ['systemctl suspend-then-hibernate', 'confirm', PW],
    ['systemctl sleep', 'confirm', PW],
    ['systemctl kexec', 'confirm', PW],
    ['systemctl soft-reboot', 'confirm', PW],
    ['systemctl -i poweroff', 'confirm', PW],
    ['systemctl start suspend.target', 'confirm', PW],
    ['systemctl isolate hibernate.target', 'confirm', PW],
    ['loginctl poweroff', 'confirm', PW],
    ['loginctl reboot', 'confirm', PW],
    ['loginctl suspend', 'confirm', PW],
    ['loginctl terminate-user me', 'confirm', PW],
    ['busctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager PowerOff b false', 'confirm', PW],
    ['busctl --system call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager Suspend b true', 'confirm', PW],
    ['dbus-send --system --print-reply --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.Reboot boolean:true', 'confirm', PW],
    ['gdbus call --system --dest org.freedesktop.login1 --object-path /org/freedesktop/login1 --method org.freedesktop.login1.Manager.PowerOff false', 'confirm', PW],
    ['busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager StartUnit ss reboot.target replace', 'confirm', PW],
    ['shutdown -r now', 'confirm', PW],
    ['/sbin/shutdown -h +0', 'confirm', PW],
    ['halt -p', 'confirm', PW],
    ['telinit 0', 'confirm', PW],
    ['telinit 6', 'confirm', PW],
    ['init 1', 'confirm', PW],
    ['rtcwake -m mem -s 60', 'confirm', PW],
    ['rtcwake -m off -s 60', 'confirm', PW],
    ['pm-suspend', 'confirm', PW],
    ['pm-hibernate', 'confirm', PW],
    ['sudo zzz', 'confirm', PW],
    ['echo b > /proc/sysrq-trigger', 'deny', 'built-in: raw device'],
    ["sysctl -w kernel.core_pattern='|/tmp/x'", 'deny', 'built-in: raw device'],
    ['sysctl kernel/poweroff_cmd=/tmp/x', 'deny', 'built-in: raw device'],
    ['systemctl $VERB', 'confirm', PW],
    ['busctl call "$S" /org/freedesktop/login1 org.freedesktop.login1.Manager PowerOff b false', 'confirm', PW],
    ["systemctl $'\\x73uspend'", 'confirm', PW],
    ['gnome-session-quit --power-off --force', 'confirm', PW],
    ['dbus-send --session --dest=org.gnome.SessionManager /org/gnome/SessionManager org.gnome.SessionManager.Logout uint32:1', 'confirm', PW],
    // still allowed: looking
    ['sysctl kernel.hostname', 'allow'],
    ['sysctl -w net.ipv4.ip_forward=1', 'allow'],
    ['systemctl status sshd', 'allow'],
    ['systemctl --user restart my-app.service', 'allow'],
    ['systemctl status', 'allow'],
    ['loginctl list-sessions', 'allow'],
    ['busctl introspect org.freedesktop.login1 /org/freedesktop/login1', 'allow'],
    ['rtcwake -m show', 'allow'],
    ['shutdown --help', 'allow'],
  ]);
  describe('with the generated rules the reboot family stays denied', () => {
    table(
      [
        ['systemctl reboot', 'deny'],
        ['shutdown -r now', 'deny'],
        ['telinit 6', 'deny'],
        ['systemctl suspend', 'confirm'],
        ['loginctl poweroff', 'confirm'],
      ],
      { rules: DEFAULTS },
    );
  });
});

describe('review round 5, own adversarial round: ten more attempts', () => {
  table([
    // 1. arithmetic assigns: let and (( )) set PROMPT_COMMAND/PS1/PATH without an `=` word
    ['let PROMPT_COMMAND=0', 'confirm', 'environment: PROMPT_COMMAND'],
    ['(( PS1 = 0 ))', 'confirm', 'environment: PS1'],
    ['(( PATH += 1 ))', 'confirm', 'environment: PATH'],
    ['for (( PS0 = 0; PS0 < 1; PS0++ )); do :; done', 'confirm', 'environment: PS0'],
    // 2. a loop variable is assigned each listed word
    ['for PROMPT_COMMAND in id; do :; done', 'confirm', 'environment: PROMPT_COMMAND'],
    ['select PS1 in x; do break; done', 'confirm', 'environment: PS1'],
    // 3. wait -p NAME assigns NAME
    ['wait -n -p PROMPT_COMMAND', 'confirm', 'environment: PROMPT_COMMAND'],
    // 4. indirect expansion evaluates the name it finds (its subscript runs code)
    ['read ref <<< x; echo ${!ref}', 'confirm', CODE],
    // 5. a variable built from another known one
    ['a=/u; b=${a}sr; rm -rf $b', 'deny', 'built-in: protected path'],
    // 6. a glob followed by .. segments still lands on a protected folder
    ['rm -rf /usr/lib/*/../..', 'deny', 'built-in: protected path'],
    // 7. >& with a file name is a write
    ['echo b >& /proc/sysrq-trigger', 'deny', 'built-in: raw device'],
    // 8. the systemd and openrc shutdown helpers
    ['/usr/lib/systemd/systemd-shutdown poweroff', 'confirm', 'built-in: power'],
    ['openrc-shutdown -p now', 'confirm', 'built-in: power'],
    // 9. holdfast's processes by pid from a lookup
    ['kill $(pgrep -f holdfast)', 'confirm', 'built-in: holdfast'],
    ['kill -9 `pidof holdfastd`', 'confirm', 'built-in: holdfast'],
    // 11. a variable name only known at run time (or set earlier in the line)
    ['v=PROMPT_COMMAND; declare "$v=id"', 'confirm', 'environment: PROMPT_COMMAND'],
    ['v=PROMPT_COMMAND; printf -v "$v" id', 'confirm', 'environment: PROMPT_COMMAND'],
    ['read "$v" <<< id', 'confirm', 'environment: PROMPT_COMMAND'],
    ['unset "$v"', 'confirm', 'environment: PROMPT_COMMAND'],
    ['getopts ab "$v"', 'confirm', 'environment: PROMPT_COMMAND'],
    // 12. attributes that change every later value of the hook's variables
    ['declare -u PROMPT_COMMAND', 'confirm', 'environment: PROMPT_COMMAND'],
    ['declare -i PS1', 'confirm', 'environment: PS1'],
    ['typeset -l PS0', 'confirm', 'environment: PS0'],
    ['readonly PS0', 'confirm', 'environment: PS0'],
    // still allowed
    ['export PATH', 'allow'],
    ['local x; declare -a arr', 'allow'],
    ['read -r a b', 'allow'],
    ['let i=i+1', 'allow'],
    ['(( n = 3 ))', 'allow'],
    ['for f in a b; do echo $f; done', 'allow'],
    ['echo ${!prefix*} ${!arr[@]}', 'allow'],
    ['kill $(cat build.pid)', 'allow'],
  ]);
  table(
    [
      // 10. the session's shell stopped, limited to death, or signalled through arithmetic
      ['suspend -f', 'confirm', 'built-in: ends the session'],
      ['ulimit -t 1', 'confirm', 'built-in: ends the session'],
      ['ulimit -Sv 1000', 'confirm', 'built-in: ends the session'],
      ['kill -9 $(( $$ ))', 'confirm', 'built-in: ends the session'],
      ['kill -9 "$(echo $$)"', 'confirm', 'built-in: ends the session'],
      ['ulimit -a', 'allow'],
      ['ulimit -n', 'allow'],
      ['( ulimit -v 1000; make )', 'allow'],
    ],
    { sessionShell: true },
  );
});

describe('review round 5: the home folder spellings stay judged', () => {
  it('the home folder is known to the tests', () => assert.ok(HOME.startsWith('/')));
});
