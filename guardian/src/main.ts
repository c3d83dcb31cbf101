/**
 * Entry point of the guardian bundle (DESIGN §1, §4.5, §5):
 * `node guardian/dist/guardian.mjs --spec <spec.json>`.
 *
 * The daemon starts it detached (own session and process group, stdio to
 * `sessions/<gid>/guardian.log`, no pipes, no IPC). Everything it needs comes from the spec file
 * (`GuardianSpec`), read once. Exit codes: 0 after an orderly end (exit.json written), 2 for a
 * bad command line or spec, 1 when start-up failed (e.g. the socket cannot be bound).
 *
 * Signals: SIGTERM and SIGINT end the session (reason `signal`, DESIGN §4.4); SIGHUP is ignored
 * (the guardian has no terminal; a stray hang-up must not end a session).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isGuardianSpec, type GuardianSpec } from '@holdfast/shared/protocol';
import { log } from './log.js';
import { Session } from './session.js';

function readSpec(argv: string[]): GuardianSpec {
  const i = argv.indexOf('--spec');
  const file = i >= 0 ? argv[i + 1] : undefined;
  if (!file) {
    log('usage: guardian --spec <spec.json>');
    process.exit(2);
  }
  let spec: unknown;
  try {
    spec = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    log(`cannot read the spec ${file}`, err);
    process.exit(2);
  }
  if (!isGuardianSpec(spec)) {
    log(`the spec ${file} is not a valid GuardianSpec (schema 1)`);
    process.exit(2);
  }
  return spec;
}

async function main(): Promise<void> {
  const spec = readSpec(process.argv.slice(2));
  const bundlePath = realpathSync(fileURLToPath(import.meta.url));
  try {
    process.chdir(spec.sessionDir);
  } catch {
    // the session folder is created below; stay where we are
  }
  const session = new Session(spec, bundlePath);
  const onSignal = (sig: NodeJS.Signals): void => {
    log(`${sig} received`);
    void session.endAndExit('signal');
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => log('SIGHUP ignored'));
  process.on('uncaughtException', (err) => log('uncaught exception (continuing)', err));
  process.on('unhandledRejection', (err) => log('unhandled rejection (continuing)', err));
  try {
    await session.start();
  } catch (err) {
    log('start-up failed', err);
    process.exit(1);
  }
}

void main();
