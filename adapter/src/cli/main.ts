#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { buildString } from '@holdfast/shared/build';
import { HoldfastError } from '@holdfast/shared/errors';
import { COMMANDS } from './commands/index.js';
import { UsageError } from './usage-error.js';

/**
 * `holdfast` — the one CLI binary (DESIGN §7): `serve`, `daemon run|stop|status`, `list`,
 * `attach`, `observe` (issue 11), `prune`, `kill`, `restart-daemon`, `doctor`, `workspace register`.
 * Errors print one line to stderr and exit non-zero (2 for usage errors, 1 otherwise).
 */
async function main(argv: string[]): Promise<void> {
  const program = new Command('holdfast')
    .description('local MCP runtime: durable sessions and workspace tools for remote agents')
    .version(buildString(), '-V, --version')
    .option('--home <dir>', 'runtime home (default $HOLDFAST_HOME or ~/.holdfast)')
    .showHelpAfterError('(run holdfast --help for usage)')
    .exitOverride();
  program.hook('preAction', (cmd) => {
    const home = cmd.opts<{ home?: string }>().home;
    if (home) process.env.HOLDFAST_HOME = home;
  });
  for (const register of COMMANDS) register(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    throw err;
  }
}

main(process.argv).catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`holdfast: ${err.message} (run holdfast --help for usage)\n`);
    process.exitCode = 2;
    return;
  }
  const msg = err instanceof HoldfastError ? `holdfast: ${err.code}: ${err.message}` : `holdfast: ${(err as Error).message ?? String(err)}`;
  process.stderr.write(msg + '\n');
  process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
});
