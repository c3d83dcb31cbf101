#!/usr/bin/env node
import { allRows } from './stats.js';
import { callsSuite } from './suites/calls.js';
import { codemapSuite } from './suites/codemap.js';
import { desktopSuite } from './suites/desktop.js';
import { execSuite } from './suites/exec.js';
import { extensionsSuite } from './suites/extensions.js';
import { filesSuite } from './suites/files.js';
import { mcpSuite } from './suites/mcp.js';
import { oauthSuite } from './suites/oauth.js';
import { panelSuite } from './suites/panel.js';
import { operationsSuite } from './suites/operations.js';
import { runtimeSuite } from './suites/runtime.js';
import { sandboxSuite } from './suites/sandbox.js';
import { workSuite } from './suites/work.js';

/**
 * `npm run bench [-- suite…]`: runs the benchmark suites and prints medians and ratios against
 * baselines measured in the same run. Nothing here passes or fails on time (DESIGN §8); the exit
 * code only says whether every suite ran.
 */
const SUITES: Record<string, () => Promise<void>> = {
  runtime: runtimeSuite,
  calls: callsSuite,
  mcp: mcpSuite,
  exec: execSuite,
  files: filesSuite,
  oauth: oauthSuite,
  sandbox: sandboxSuite,
  codemap: codemapSuite,
  extensions: extensionsSuite,
  work: workSuite,
  ops: operationsSuite,
  desktop: desktopSuite,
  panel: panelSuite,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : Object.keys(SUITES);
  let failed = 0;
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) {
      process.stderr.write(`unknown suite ${name}; suites: ${Object.keys(SUITES).join(', ')}\n`);
      process.exitCode = 2;
      return;
    }
    process.stdout.write(`\n== ${name} ==\n  ${'measure'.padEnd(48)} ${'holdfast'.padEnd(26)} ${'baseline (same run)'.padEnd(34)} ratio\n`);
    try {
      await suite();
    } catch (err) {
      failed++;
      process.stderr.write(`suite ${name} failed: ${(err as Error).stack ?? String(err)}\n`);
    }
  }
  process.stdout.write(`\n${allRows().length} measures.\n`);
  if (failed > 0) process.exitCode = 1;
}

void main();
