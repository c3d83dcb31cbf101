import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/**
 * Reads one line from the terminal without echoing it (the question goes to stderr): owner
 * passwords (`holdfast oauth set-password`, issue 14) and secrets (`holdfast secret provide`,
 * issue 12). The caller checks `process.stdin.isTTY` first.
 */
export function promptHidden(question: string): Promise<string> {
  let muted = false;
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      if (!muted) process.stderr.write(chunk);
      cb();
    },
  });
  const rl = createInterface({ input: process.stdin, output: out, terminal: true });
  return new Promise((resolve, reject) => {
    rl.once('SIGINT', () => {
      rl.close();
      process.stderr.write('\n');
      reject(new Error('cancelled'));
    });
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}
