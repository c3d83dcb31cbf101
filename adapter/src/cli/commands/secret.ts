import type { Command } from 'commander';
import { SecretLimits } from '@holdfast/shared/constants';
import { SECRET_NAME_RE } from '@holdfast/shared/protocol';
import { withClient } from '../client.js';
import { promptHidden } from '../hidden-input.js';
import { UsageError } from '../usage-error.js';

/**
 * `holdfast secret provide <remote_session_id> <name>` (issue 12, docs/secrets.md): the user gives
 * a session the secret its agent asked for. The value is read from the terminal without echo — a
 * TTY is required, so it never comes from a pipe, a file or the shell history — and handed to the
 * session's guardian, which keeps it in memory only. The agent's purpose is shown first.
 */
export function registerSecret(program: Command): void {
  const secret = program.command('secret').description('secrets for a session (memory of its guardian only; docs/secrets.md)');
  secret
    .command('provide <remote_session_id> <name>')
    .description('type a secret a session asked for (hidden input; a terminal is required)')
    .action(async (id: string, name: string) => {
      if (!SECRET_NAME_RE.test(name)) throw new UsageError(`${JSON.stringify(name)} is not a secret name (letters, digits and _, not starting with a digit)`);
      if (!process.stdin.isTTY) throw new UsageError('secret provide reads the value from a terminal (hidden input); run it in your own terminal, not through a pipe or a script');
      await withClient(async (c) => {
        const pending = await c.call('secret.pending', { id }, { retry: 'idempotent', deadlineMs: 15_000 });
        const asked = pending.requests.find((r) => r.name === name);
        const held = pending.secrets.find((s) => s.name === name);
        if (asked) process.stderr.write(`The agent of ${id} asks for ${name}: ${asked.purpose}\n`);
        else if (held) process.stderr.write(`${name} is held already (since ${new Date(held.provided_at).toISOString()}); a new value replaces it.\n`);
        else process.stderr.write(`The agent of ${id} has not asked for ${name}; it can use it with execute(secrets=["${name}"]).\n`);
        let value: string;
        try {
          value = await promptHidden(`Value of ${name} (hidden): `);
        } catch {
          throw new UsageError('cancelled; nothing was sent');
        }
        if (value.length === 0) throw new UsageError('empty value; nothing was sent');
        if (Buffer.byteLength(value) < SecretLimits.VALUE_MIN_BYTES || Buffer.byteLength(value) > SecretLimits.VALUE_MAX_BYTES) {
          throw new UsageError(`a secret is ${SecretLimits.VALUE_MIN_BYTES} to ${SecretLimits.VALUE_MAX_BYTES} bytes; nothing was sent`);
        }
        const r = await c.call('secret.provide', { id, name, value }, { retry: 'never', deadlineMs: 15_000 });
        value = '';
        process.stdout.write(`${name} ${r.replaced ? 'replaced' : 'handed'} to ${id}: held in its memory only, shown as [secret:${name}] in its output.\n`);
      });
    });
}
