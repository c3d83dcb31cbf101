#!/usr/bin/env node
// The `holdfast` command (DESIGN §7, issue 8). npm links this committed file as a bin when it
// installs the checkout (`npm ci`: `npx holdfast` in the checkout; `npm link` or
// `npm install -g .`: `holdfast` on PATH), before `dist/` exists; it runs the built CLI, or says
// how to build it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  const checkout = fileURLToPath(new URL('../..', import.meta.url));
  process.stderr.write(`holdfast: not built yet; run \`npm run build\` (or \`npm start\`) in ${checkout}\n`);
  process.exit(1);
}
await import(main.href);
