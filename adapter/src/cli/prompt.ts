/**
 * Reading secrets and answers from the person running the CLI (issue 15 `desktop device add`):
 * a password is read from the terminal without echo, or from stdin (`--password-stdin`, first
 * line) for scripts. It is never printed, logged or put on a command line.
 */

/**
 * Reads a line from the terminal without echoing it.
 * @throws Error when stdin is not a terminal, or on Ctrl-C / Ctrl-D at an empty line.
 */
export function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return Promise.reject(new Error('no terminal to read the password from'));
  process.stderr.write(prompt);
  return new Promise<string>((resolve, reject) => {
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const finish = (err: Error | null): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish(null);
        if (ch === '\u0003') return finish(new Error('cancelled'));
        if (ch === '\u0004' && value.length === 0) return finish(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The first line of stdin (for `--password-stdin`), without its line ending. */
export async function readFirstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/** Asks a question on the terminal and resolves with the answer line (echoed). */
export async function ask(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}
