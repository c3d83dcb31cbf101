import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SecretLimits } from '@holdfast/shared/protocol';
import { log } from '../log.js';

/** How often a pipe is tried for a reader, ms. */
const OPEN_POLL_MS = 5;

/** Quotes a path for bash (single quotes). */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The pipes of one command: the text to put before it, and the feeding to start once it is typed. */
export interface SecretHandoff {
  /** Wraps the command line: `( A="$(< 'pipe')" && export A && LINE\n)`. */
  wrap(line: string): string;
  /** Writes each value into its pipe as soon as the command opens it; resolves when all are written or given up. */
  feed(): Promise<void>;
  /** Stops feeding and removes the pipes (the command ended or never started). */
  dispose(): void;
}

/**
 * Hands secret values to one foreground command without typing them into the terminal or writing
 * them to a file (issue 12, docs/secrets.md): each value goes through its own FIFO (0600, in the
 * session's `shell/cmd` folder, which a sandboxed shell can read). The typed line runs the command
 * in a subshell that reads each pipe with bash's `$(< pipe)`; the guardian opens the pipe for
 * writing (non-blocking, so only once the reader is there), writes the value, closes and removes
 * it. A pipe nobody opens within {@link SecretLimits.FIFO_OPEN_TIMEOUT_MS} is removed: the
 * assignment then fails and the command does not run.
 */
export function prepareHandoff(dir: string, values: Record<string, Buffer>): SecretHandoff {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pipes: { name: string; path: string; value: Buffer; done: boolean }[] = [];
  try {
    for (const [name, value] of Object.entries(values)) {
      const path = join(dir, `s-${randomBytes(12).toString('hex')}.fifo`);
      execFileSync('mkfifo', ['-m', '0600', path], { stdio: 'ignore' });
      pipes.push({ name, path, value, done: false });
    }
  } catch (err) {
    for (const p of pipes) rmSync(p.path, { force: true });
    throw err;
  }
  let disposed = false;
  const cleanup = (): void => {
    for (const p of pipes) {
      p.value.fill(0);
      rmSync(p.path, { force: true });
    }
  };
  return {
    wrap(line: string): string {
      const reads = pipes.map((p) => `${p.name}="$(< ${shellQuote(p.path)})"`).join(' && ');
      return `( ${reads} && export ${pipes.map((p) => p.name).join(' ')} && ${line}\n)`;
    },
    async feed(): Promise<void> {
      const until = Date.now() + SecretLimits.FIFO_OPEN_TIMEOUT_MS;
      while (!disposed && pipes.some((p) => !p.done) && Date.now() < until) {
        for (const p of pipes) {
          if (p.done) continue;
          let fd: number;
          try {
            fd = openSync(p.path, constants.O_WRONLY | constants.O_NONBLOCK);
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            if (code === 'ENXIO') continue; // no reader yet
            log(`secret pipe for ${p.name}: ${code ?? (err as Error).message}`);
            p.done = true;
            continue;
          }
          try {
            let off = 0;
            while (off < p.value.length) off += writeSync(fd, p.value, off, p.value.length - off);
          } catch (err) {
            log(`writing the secret pipe for ${p.name} failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
          } finally {
            closeSync(fd);
            p.value.fill(0);
            rmSync(p.path, { force: true });
            p.done = true;
          }
        }
        if (pipes.some((p) => !p.done)) await new Promise((r) => setTimeout(r, OPEN_POLL_MS));
      }
      if (!disposed) cleanup();
    },
    dispose(): void {
      disposed = true;
      cleanup();
    },
  };
}
