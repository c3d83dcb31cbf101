// A node:test custom reporter (Node ≥ 20: `--test-reporter=<module>`) that writes one short
// block per failed test — file, test path, error message and the first lines of its stack — so
// a run's failures can be printed again at its very end (run-tests.mjs) and at the end of CI's
// log (.ci/run), where a long TAP stream would otherwise bury them. Suites that failed only
// because a subtest failed are left out: the subtest has its own block.

/** Cuts `text` to its first `lines` lines. */
function head(text, lines) {
  const all = String(text).split('\n');
  return all.length <= lines ? all.join('\n') : `${all.slice(0, lines).join('\n')}\n…`;
}

/**
 * Reporter entry point: node:test passes the run's event stream; each yielded string goes to
 * this reporter's destination.
 * @param {AsyncIterable<{type: string, data: any}>} source
 */
export default async function* failureSummary(source) {
  // The names of the tests being run, outermost first, per test file (files run side by side).
  const paths = new Map();
  const failures = [];
  for await (const event of source) {
    const data = event.data ?? {};
    if (event.type !== 'test:start' && event.type !== 'test:fail') continue;
    if (!paths.has(data.file)) paths.set(data.file, []);
    const path = paths.get(data.file);
    if (event.type === 'test:start') {
      path[data.nesting] = data.name;
      path.length = data.nesting + 1;
    } else {
      const error = data.details?.error;
      if (error?.failureType === 'subtestsFailed') continue;
      const cause = error?.cause ?? error;
      const names = path.slice(0, data.nesting).concat(data.name);
      const message = (cause instanceof Error ? (cause.stack ?? cause.message) : String(cause))
        .split('\n')
        .filter((line) => !/^\s+at (.*\()?node:/.test(line))
        .join('\n');
      failures.push(`✖ ${data.file ?? '(unknown file)'}\n  ${names.join(' › ')}\n${head(message, 24).replace(/^/gm, '    ')}\n`);
    }
  }
  yield failures.length === 0 ? '' : `${failures.length} failed test(s):\n\n${failures.join('\n')}`;
}
