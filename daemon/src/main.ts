#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { HoldfastError } from '@holdfast/shared/errors';
import { homeLayout, resolveHome } from '@holdfast/shared/paths';
import { Daemon } from './daemon.js';
import { log } from './log.js';
import { HOLDFAST_INSTALL_ROOT, withoutNpmLaunch } from './sessions/session-env.js';

/**
 * `holdfastd [run] [--home DIR] [--takeover] [--if-absent]` (also `holdfast daemon run`). Runs
 * in the foreground until stopped; logs go to stderr. `--takeover` is how a restart successor
 * starts: it waits for its predecessor to release the lock and socket. `--if-absent` is how an
 * adapter auto-starts one: finding another daemon already serving the home is then not a failure
 * (exit 0, logged at info) — two adapters may race to start it, and the lock picks one.
 */
async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { home: { type: 'string' }, takeover: { type: 'boolean', default: false }, 'if-absent': { type: 'boolean', default: false } },
  });
  if (positionals.length > 0 && positionals[0] !== 'run') {
    process.stderr.write(`holdfastd: unknown command ${positionals[0]} (usage: holdfastd [run] [--home DIR])\n`);
    process.exit(2);
  }
  // Started through `npm start`: drop npm's run-script variables and PATH entries from our own
  // environment, so nothing holdfastd runs finds programs through them (docs/sessions.md).
  const clean = withoutNpmLaunch(process.env, HOLDFAST_INSTALL_ROOT);
  for (const k of Object.keys(process.env)) if (!(k in clean)) delete process.env[k];
  if (clean.PATH !== undefined) process.env.PATH = clean.PATH;
  const home = resolveHome(values.home ? { ...process.env, HOLDFAST_HOME: values.home } : process.env);
  process.env.HOLDFAST_HOME = home;
  const daemon = new Daemon({ layout: homeLayout(home), lockWaitMs: values.takeover ? 15_000 : 0, log });
  const onSignal = (sig: NodeJS.Signals): void => {
    log.info('signal received: stopping (sessions keep running)', { signal: sig });
    void daemon.stop(false, 0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => undefined);
  // A write that hits a full disk outside any request (a timer, a guardian event) must not end the
  // daemon: the agent needs it to free space (issue 18). Anything else still ends it, as before.
  process.on('uncaughtException', (err) => {
    if (daemon.noteWriteError(err)) {
      log.error('a write failed on a full disk; holdfastd keeps running', { error: err.message });
      return;
    }
    process.stderr.write(`${err.stack ?? String(err)}\n`);
    process.exit(1);
  });
  try {
    await daemon.start();
  } catch (err) {
    if (values['if-absent'] && err instanceof HoldfastError && err.details?.already_serving === true) {
      log.info('another holdfastd already serves this home: nothing to start', { error: err.message });
      process.exit(0);
    }
    log.error('holdfastd failed to start', { error: (err as Error).message });
    process.stderr.write(`holdfastd: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const code = await daemon.exited;
  process.exit(code);
}

void main();
