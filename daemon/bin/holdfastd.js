#!/usr/bin/env node
// The `holdfastd` command (DESIGN §1, issue 8): the daemon in the foreground, like
// `holdfast daemon run`. A committed launcher, linked by npm before `dist/` exists; it runs the
// built daemon, or says how to build it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  const checkout = fileURLToPath(new URL('../..', import.meta.url));
  process.stderr.write(`holdfastd: not built yet; run \`npm run build\` (or \`npm start\`) in ${checkout}\n`);
  process.exit(1);
}
await import(main.href);
