import type { Command } from 'commander';
import type { DoctorCheck } from '@holdfast/shared/control';
import { longestSocketPathBytes, SUN_PATH_MAX_BYTES } from '@holdfast/shared/paths';
import { cliClient, printJson } from '../client.js';

/**
 * `holdfast doctor [--json]` (DESIGN §7): the daemon's redacted checks (versions, socket path
 * length, permissions, DB integrity, rows vs live guardians, orphans, node-pty, systemd KillMode).
 * With the daemon down it reports what it can see locally and exits 1.
 */
export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check the installation and the runtime (redacted)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const c = cliClient();
      let checks: DoctorCheck[];
      try {
        checks = (await c.call('daemon.doctor', {}, { deadlineMs: 30_000 })).checks;
      } catch (err) {
        const len = longestSocketPathBytes(c.layout.runDir);
        checks = [
          // The client's message already says where it looked and what to do (issue 8: said once).
          { name: 'daemon', ok: false, detail: (err as Error).message },
          { name: 'socket path', ok: len <= SUN_PATH_MAX_BYTES, detail: `run dir ${c.layout.runDir}; longest socket path ${len} of ${SUN_PATH_MAX_BYTES} bytes` },
        ];
      } finally {
        c.close();
      }
      if (o.json) printJson({ ok: checks.every((x) => x.ok), checks });
      else for (const x of checks) process.stdout.write(`${!x.ok ? 'FAIL' : x.warn ? 'WARN' : 'ok  '} ${x.name}: ${x.detail}\n`);
      if (!checks.every((x) => x.ok)) process.exitCode = 1;
    });
}
