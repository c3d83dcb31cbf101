import { Option, type Command } from 'commander';
import type { DeviceView } from '@holdfast/shared/control';
import { printJson, shortDuration, table, withClient } from '../client.js';
import { ask, readFirstLineOfStdin, readHidden } from '../prompt.js';
import { UsageError, wholeNumber } from '../usage-error.js';
import { registerDesktopView } from './desktop-view.js';

interface AddOptions {
  host: string;
  port: number;
  credential: string;
  authorization: 'view' | 'control';
  autoConnect?: boolean;
  passwordStdin?: boolean;
  json?: boolean;
}

/**
 * `holdfast desktop …` (issue 15), run by the person in their own terminal:
 *
 * - `device add <alias> --host H --port P --credential keyring|env:VAR|none --authorization
 *   view|control [--auto-connect] [--password-stdin]`: the password is asked without echo (or read
 *   from stdin's first line) and goes to the OS keyring — never to disk; no keyring →
 *   `KEYRING_UNAVAILABLE`, nothing written;
 * - `device list`, `device remove <alias>` (disconnects a live connection, deletes the keyring entry);
 * - `list`: open desktop sessions;
 * - `pause <id>` / `resume <id>` (`ds_…` or a device alias): the person's lock the agent cannot lift;
 * - `disconnect <id>`: ends an agent's desktop session (the agent sees `closed`, no reconnect);
 * - `pair <view_id> [--device ALIAS|virtual] [--yes] [--close] [--link]`: answers an agent's
 *   `desktop_open` (or a device without auto-connect) by connecting a desktop for its session, or
 *   declines it. In a terminal it first prints a one-time link to the view's panel page (issue 16:
 *   valid once, for 60 s; never printed inside an agent's session or without a terminal);
 * - `view --view <view_id>`: the desktop in this terminal (issue 16, desktop-view.ts).
 */
export function registerDesktop(program: Command): void {
  const desktop = program.command('desktop').description('desktop devices and the agent desktop sessions (pause, resume, pair)');
  const device = desktop.command('device').description('the book of desktops agents may connect to');

  device
    .command('add <alias>')
    .description('authorize a VNC desktop under an alias (the password goes to the OS keyring)')
    .requiredOption('--host <host>', 'VNC server host')
    .requiredOption('--port <port>', 'VNC server port', wholeNumber('--port', 1))
    .requiredOption('--credential <where>', 'keyring (asks the password), env:VAR (holdfastd reads $VAR), or none')
    .addOption(new Option('--authorization <grant>', 'view: screenshots only; control: input too').choices(['view', 'control']).makeOptionMandatory())
    .option('--auto-connect', 'agents may connect without asking each time')
    .option('--password-stdin', 'read the password from the first line of stdin instead of the terminal')
    .option('--json', 'print JSON')
    .action(async (alias: string, o: AddOptions) => {
      if (o.credential !== 'keyring' && o.credential !== 'none' && !/^env:[A-Za-z_][A-Za-z0-9_]*$/.test(o.credential)) {
        throw new UsageError(`--credential must be keyring, none or env:VAR (got "${o.credential}")`);
      }
      if (o.port > 65535) throw new UsageError('--port must be at most 65535');
      let password: string | undefined;
      if (o.credential === 'keyring') {
        if (o.passwordStdin) password = await readFirstLineOfStdin();
        else if (process.stdin.isTTY) password = await readHidden(`VNC password for ${alias} (not shown): `);
        else throw new UsageError('no terminal to ask the password on: run it in a terminal, or pipe the password with --password-stdin');
        if (!password) throw new UsageError('the password is empty');
      } else if (o.passwordStdin) {
        throw new UsageError('--password-stdin goes with --credential keyring');
      }
      await withClient(
        async (c) => {
          const r = await c.call(
            'desktop.device_add',
            { alias, host: o.host, port: o.port, credential: o.credential, authorization: o.authorization, auto_connect: o.autoConnect === true, ...(password !== undefined ? { password } : {}) },
            { retry: 'never' },
          );
          if (o.json) return printJson(r);
          process.stdout.write(`${r.replaced ? 'replaced' : 'added'} ${describe(r.device)}\n`);
        },
        { autoStart: true, giveUpMs: 15_000 },
      );
    });

  device
    .command('list')
    .description('authorized desktops')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      await withClient(async (c) => {
        const { devices } = await c.call('desktop.device_list', {});
        if (o.json) return printJson(devices);
        if (devices.length === 0) return void process.stdout.write('no devices; add one with holdfast desktop device add\n');
        process.stdout.write(
          table(
            ['ALIAS', 'ADDRESS', 'GRANT', 'AUTO', 'CREDENTIAL', 'STATE'],
            devices.map((d) => [d.alias, `${d.host}:${d.port}`, d.authorization, d.auto_connect ? 'yes' : 'no', d.credential, state(d)]),
          ),
        );
      });
    });

  device
    .command('remove <alias>')
    .description('withdraw a desktop: disconnects an agent using it and deletes its keyring entry')
    .option('--json', 'print JSON')
    .action(async (alias: string, o: { json?: boolean }) => {
      await withClient(async (c) => {
        const r = await c.call('desktop.device_remove', { alias }, { retry: 'never' });
        if (o.json) return printJson(r);
        if (!r.removed) return void process.stdout.write(`no device ${alias}\n`);
        const kr = r.keyring === 'unavailable' ? ' (the keyring was unreachable: its entry is still there)' : r.keyring === 'deleted' ? ' and its keyring entry' : '';
        process.stdout.write(`removed ${alias}${kr}${r.disconnected ? `; disconnected ${r.disconnected}` : ''}\n`);
      });
    });

  desktop
    .command('list')
    .description('open agent desktop sessions')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      await withClient(async (c) => {
        const { sessions } = await c.call('desktop.list', {});
        if (o.json) return printJson(sessions);
        if (sessions.length === 0) return void process.stdout.write('no desktop sessions\n');
        process.stdout.write(
          table(
            ['DESKTOP SESSION', 'DEVICE', 'STATE', 'SESSION', 'PRINCIPAL', 'AGE'],
            sessions.map((s) => [s.desktop_session_id, s.device, s.paused ? `${s.state}, PAUSED` : s.state, s.remote_session_id, s.principal, shortDuration((Date.now() - s.created_at) / 1000)]),
          ),
        );
      });
    });

  for (const [verb, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    desktop
      .command(`${verb} <id>`)
      .description(paused ? 'stop the agent: all its input is refused until you resume (id: ds_… or a device alias)' : 'let the agent act again after a pause')
      .option('--json', 'print JSON')
      .action(async (id: string, o: { json?: boolean }) => {
        await withClient(async (c) => {
          const r = await c.call(paused ? 'desktop.pause' : 'desktop.resume', { id }, { retry: 'never' });
          if (o.json) return printJson(r);
          process.stdout.write(`${paused ? 'paused' : 'resumed'} ${r.target}${r.desktop_session_id ? ` (${r.desktop_session_id})` : ''}\n`);
        });
      });
  }

  desktop
    .command('disconnect <id>')
    .description("end an agent's desktop session (id: ds_… or a device alias); the agent sees it closed")
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      await withClient(async (c) => {
        const r = await c.call('desktop.disconnect', { id }, { retry: 'never' });
        if (o.json) return printJson(r);
        process.stdout.write(`disconnected ${r.desktop_session_id} (${r.device}) of ${r.remote_session_id}\n`);
      });
    });

  desktop
    .command('pair <view_id>')
    .description("answer an agent's request for a desktop: connect one for its session (or --close to decline)")
    .option('--device <alias>', 'the desktop to connect (a device alias or virtual); default: the one the agent asked for')
    .option('--yes', 'do not ask for confirmation')
    .option('--close', 'decline: close the request without connecting anything')
    .option('--link', 'only print the one-time link to the panel page (valid once, for 60 s)')
    .option('--json', 'print JSON')
    .action(async (viewId: string, o: { device?: string; yes?: boolean; close?: boolean; link?: boolean; json?: boolean }) => {
      await withClient(async (c) => {
        const v = await c.call('desktop.view', { view_id: viewId });
        if (v.state !== 'waiting') throw new UsageError(`view ${viewId} is already ${v.state}`);
        // The one-time secret goes to the person's own terminal only: never into a pipe, a file or an
        // agent's session (whose output the model reads).
        const ownTerminal = process.stdout.isTTY === true && !process.env.HOLDFAST_SESSION;
        if (o.link) {
          if (!ownTerminal) throw new UsageError('--link prints a one-time secret: run it in your own terminal, not through a pipe or inside an agent session');
          const l = await c.call('desktop.panel_link', { view_id: viewId });
          process.stdout.write(`${l.url}\n`);
          return;
        }
        let alias = o.device ?? v.device ?? undefined;
        if (!o.close) {
          const interactive = process.stdin.isTTY === true;
          if (!alias) {
            if (!interactive) throw new UsageError('the agent named no desktop: pass --device <alias> (or virtual)');
            process.stderr.write(`Session ${v.remote_session_id} (${v.principal}, workspace ${v.workspace}) asks for a desktop.\n`);
            if (ownTerminal) {
              const l = await c.call('desktop.panel_link', { view_id: viewId }).catch(() => null);
              if (l) process.stdout.write(`Pick it in your browser — this link works once, for 60 s:\n  ${l.url}\nor here. `);
            }
            process.stderr.write(`Devices: ${v.devices.map((d) => d.alias).join(', ') || '(none)'}, virtual\n`);
            alias = await ask('Connect which one? (Enter after using the link) ');
            if (!alias) {
              const now = await c.call('desktop.view', { view_id: viewId });
              if (now.state !== 'waiting') return void process.stdout.write(`view ${viewId} is ${now.state}\n`);
              throw new UsageError('nothing chosen');
            }
          } else if (!o.yes) {
            if (!interactive) throw new UsageError('pass --yes to connect without a terminal to confirm on');
            const answer = await ask(`Connect ${alias} for session ${v.remote_session_id} (${v.principal}, workspace ${v.workspace})? [y/N] `);
            if (!/^y(es)?$/i.test(answer)) throw new UsageError('not connected');
          }
        }
        const r = await c.call('desktop.pair', { view_id: viewId, ...(alias ? { device: alias } : {}), close: o.close === true }, { retry: 'never', deadlineMs: 60_000 });
        if (o.json) return printJson(r);
        process.stdout.write(o.close ? `closed ${viewId}\n` : `connected ${r.device} as ${r.desktop_session_id} for ${r.remote_session_id}\n`);
      });
    });

  registerDesktopView(desktop);
}

function state(d: DeviceView): string {
  const used = d.desktop_session_id ? `in use by ${d.remote_session_id}` : 'free';
  return d.paused ? `${used}, PAUSED` : used;
}

function describe(d: DeviceView): string {
  return `${d.alias} → ${d.host}:${d.port} (${d.authorization}${d.auto_connect ? ', auto-connect' : ''}, credential ${d.credential})`;
}
