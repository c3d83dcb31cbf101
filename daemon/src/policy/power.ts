import type { ShellWord } from './shell-syntax.js';
import type { CommandView } from './wrappers.js';

/**
 * The power rule (review round 5, docs/command-policy.md "Built-in confirmations"): powering off,
 * rebooting, halting, suspending or hibernating the machine, switching runlevels, or ending the
 * user's whole login — through any front end — needs confirmation (`built-in: power`), whatever
 * config.yaml says. The generated deny list (`shutdown`, `reboot`, `systemctl reboot`, `telinit 6`,
 * …) still refuses the reboot family by name first; this rule catches what a name list cannot:
 *
 * - `systemctl` verbs `poweroff|reboot|halt|kexec|soft-reboot|suspend|hibernate|hybrid-sleep|
 *   suspend-then-hibernate|sleep|emergency|rescue|default|exit`, and `start|restart|isolate|…` of a
 *   unit named after one (`systemctl start suspend.target`, `systemd-suspend.service`);
 * - `loginctl` `poweroff|reboot|halt|suspend|hibernate|…|kexec|sleep` and
 *   `terminate-user|terminate-session|terminate-seat|kill-user|kill-session|kill-seat`;
 * - D-Bus front ends (`busctl`, `dbus-send`, `gdbus`, `qdbus`) calling `org.freedesktop.login1`,
 *   `org.freedesktop.systemd1` or a desktop session manager with a power, unit or logout method
 *   (`PowerOff`, `Reboot`, `Suspend`, `StartUnit`, `TerminateUser`, `Logout`, …);
 * - `shutdown`, `halt`, `poweroff`, `reboot`, `kexec`, `pm-suspend|hibernate|suspend-hybrid`,
 *   `s2ram`, `s2disk`, `zzz`, `rtcwake` (but `-m show|no`), `init`/`telinit` with a runlevel, and the
 *   desktop logout tools (`gnome-session-quit`, `xfce4-session-logout`) — all but `--help`/`--version`.
 *
 * `echo b > /proc/sysrq-trigger` and `/sys/power/state` writes are the floor's (builtins.ts: denied).
 */

export const POWER = 'built-in: power';

const POWER_VERB = /^(poweroff|reboot|halt|kexec|soft-reboot|suspend|hibernate|hybrid-sleep|suspend-then-hibernate|sleep)$/;
const SYSTEMCTL_VERB = /^(emergency|rescue|default|exit)$/;
const UNIT_VERB = /^(start|restart|try-restart|reload-or-restart|try-reload-or-restart|isolate|enqueue|enable|reenable)$/;
const POWER_UNIT = /(reboot|poweroff|halt|kexec|suspend|hibernate|sleep|shutdown|ctrl-alt-del|emergency|rescue)/;
const LOGIN_END = /^(terminate|kill)-(user|session|seat)$/;
const DBUS_FRONT_ENDS = new Set(['busctl', 'dbus-send', 'gdbus', 'qdbus', 'qdbus6', 'dbus']);
const DBUS_SERVICE = /org\.freedesktop\.(login1|systemd1)|SessionManager|ksmserver|KSMServer/;
const DBUS_METHOD = /(^|[./])(PowerOff|Reboot|Halt|Suspend|Hibernate|HybridSleep|SuspendThenHibernate|Sleep|KExec|SoftReboot|ScheduleShutdown|StartUnit|RestartUnit|StartTransientUnit|EnqueueUnitJob|TerminateUser|TerminateSession|TerminateSeat|KillUser|KillSession|Exit|Shutdown|Logout|RequestShutdown|RequestReboot|logout)$/;
const ALWAYS = new Set(['shutdown', 'halt', 'poweroff', 'reboot', 'kexec', 'pm-suspend', 'pm-hibernate', 'pm-suspend-hybrid', 's2ram', 's2disk', 's2both', 'zzz', 'ZZZ', 'gnome-session-quit', 'xfce4-session-logout', 'lxqt-leave', 'systemd-sleep', 'systemd-shutdown', 'openrc-shutdown']);
const ONLY_HELP = /^(--help|-h|--version|-V)$/;

/** Why this command powers off, reboots, suspends the machine or ends the login, or null. */
export function powerAction(name: string, view: CommandView): string | null {
  const args = view.words.slice(1);
  const shown = (): string => view.words.map((w) => w.source).join(' ');
  const found = (what: string): string => `${shown()} ${what}, which stops holdfast and every session with it`;
  const positionals = args.filter((w) => w.dynamic || !w.text.startsWith('-'));
  if (ALWAYS.has(name)) return args.length > 0 && args.every((w) => ONLY_HELP.test(w.text)) ? null : found('powers off, reboots, suspends or logs out');
  switch (name) {
    case 'systemctl':
      return systemctl(args) ? found('powers off, reboots, suspends or switches the system state') : null;
    case 'loginctl':
      return positionals.some((w) => w.dynamic || POWER_VERB.test(w.text) || LOGIN_END.test(w.text)) ? found('powers off, suspends or ends logins') : null;
    case 'init':
    case 'telinit':
      return positionals.some((w) => w.dynamic || /^([0-6sS]|single|emergency|rescue|halt|poweroff|reboot)$/.test(w.text)) ? found('switches the runlevel') : null;
    case 'rtcwake': {
      const mode = args.findIndex((w) => w.text === '-m' || w.text === '--mode');
      const value = mode >= 0 ? args[mode + 1] : args.find((w) => /^(-m|--mode=)./.test(w.text));
      const m = value?.text.replace(/^(-m|--mode=)/, '');
      if (args.every((w) => ONLY_HELP.test(w.text)) && args.length > 0) return null;
      return value && !value.dynamic && (m === 'show' || m === 'no') ? null : found('suspends or powers off the machine until an alarm');
    }
    default:
      if (!DBUS_FRONT_ENDS.has(name)) return null;
      // A service, object or method only known at run time may be any of them.
      return args.some((w) => w.dynamic || DBUS_SERVICE.test(w.text)) && args.some((w) => w.dynamic || DBUS_METHOD.test(w.text)) ? found('asks the login or system manager over D-Bus to power off, reboot, suspend, start a unit or end logins') : null;
  }
}

function systemctl(args: readonly ShellWord[]): boolean {
  const positionals = args.filter((w) => w.dynamic || !w.text.startsWith('-'));
  if (positionals.some((w) => w.dynamic)) return positionals.some((w) => w.dynamic && positionals.indexOf(w) === 0) || positionals.some((w) => UNIT_VERB.test(w.text));
  if (positionals.some((w) => POWER_VERB.test(w.text) || SYSTEMCTL_VERB.test(w.text))) return true;
  const verb = positionals.findIndex((w) => UNIT_VERB.test(w.text));
  return verb >= 0 && positionals.slice(verb + 1).some((w) => POWER_UNIT.test(w.text));
}
