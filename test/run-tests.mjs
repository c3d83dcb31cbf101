// Runs every compiled test (unit tests beside the code, scenario tests in test/dist) with
// node:test, then checks the process table: any process that inherited this run's marker
// (HOLDFAST_TEST_RUN) and is still alive is a leak — it is killed and the run fails.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const runId = randomBytes(6).toString('hex');
const marker = `HOLDFAST_TEST_RUN=${runId}`;

function findTests(dir) {
  let out = [];
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    const st = statSync(p);
    if (st.isDirectory()) out = out.concat(findTests(p));
    else if (n.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = ['shared', 'guardian', 'daemon', 'adapter', 'test'].flatMap((w) => findTests(join(root, w, 'dist')));
if (filter.length > 0) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}
const concurrency = process.env.HOLDFAST_TEST_CONCURRENCY ?? '2';
console.error(`holdfast tests: ${files.length} files, concurrency ${concurrency}, run ${runId}`);

/**
 * The tests' environment (issue 9, item 10): the caller's, minus what would make holdfast or the
 * shells the tests start behave differently from a fresh machine — every `HOLDFAST_*` variable
 * (a developer's `HOLDFAST_HOME` is not the tests' home; the runner's own `HOLDFAST_TEST_*` knobs
 * stay), the variables that make bash run code or end itself (`BASH_ENV`, `ENV`, `TMOUT`,
 * `PROMPT_COMMAND`, `CDPATH`, `GLOBIGNORE`, exported functions), the locale (tests that need one
 * set it; holdfast picks a UTF-8 locale itself) and what `npm test` exports (`npm_config_cache`
 * would send an `npm install` in a test's shell to the caller's ~/.npm). Tests build their own
 * homes on top of this.
 */
function testEnvironment(env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (k.startsWith('HOLDFAST_') && !k.startsWith('HOLDFAST_TEST_')) continue;
    if (['BASH_ENV', 'ENV', 'TMOUT', 'PROMPT_COMMAND', 'CDPATH', 'GLOBIGNORE', 'LANG', 'LANGUAGE'].includes(k)) continue;
    if (k.startsWith('LC_') || k.startsWith('BASH_FUNC_')) continue;
    // `npm test` exports its own settings (npm_config_cache=~/.npm, …): a shell in a test's
    // session must use the test's HOME, as it would under any other caller.
    if (k.startsWith('npm_') || k === 'INIT_CWD') continue;
    out[k] = v;
  }
  return out;
}

function leftovers() {
  const found = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1');
      if (!env.split('\0').includes(marker)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
      found.push({ pid: Number(pid), cmd });
    } catch {
      // gone or not ours
    }
  }
  return found;
}

// Two reporters: the usual one (spec on a terminal, TAP otherwise, as node:test picks) to stdout,
// and test/failure-summary.mjs to a file whose blocks are printed again at the end of the run —
// and, when HOLDFAST_TEST_SUMMARY names a file, written there too (.ci/run prints it at the end
// of CI's log, after every Node's run).
const failuresFile = join(tmpdir(), `holdfast-test-failures-${runId}.txt`);
const reporters = [
  `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
  '--test-reporter-destination=stdout',
  `--test-reporter=${join(root, 'test', 'failure-summary.mjs')}`,
  `--test-reporter-destination=${failuresFile}`,
];
const child = spawn(process.execPath, ['--test', ...reporters, `--test-concurrency=${concurrency}`, '--test-timeout=240000', ...files.map((f) => relative(root, f))], {
  cwd: root,
  stdio: 'inherit',
  // HOLDFAST_CHECK_OUTPUT=1: every result is checked against its tool's full output schema under
  // the tests (in service only the envelope's shape is, issue 10).
  env: { ...testEnvironment(process.env), HOLDFAST_TEST_RUN: runId, HOLDFAST_CHECK_OUTPUT: '1' },
});
/** The failure blocks the summary reporter wrote ('' when none), and the file removed. */
function takeFailures() {
  try {
    return readFileSync(failuresFile, 'utf8');
  } catch {
    return '';
  } finally {
    rmSync(failuresFile, { force: true });
  }
}

/** Prints the run's closing summary to stderr and, if HOLDFAST_TEST_SUMMARY is set, to that file. */
function summarize(lines) {
  const text = lines.filter(Boolean).join('\n');
  console.error(`\n${text}`);
  if (process.env.HOLDFAST_TEST_SUMMARY) writeFileSync(process.env.HOLDFAST_TEST_SUMMARY, `${text}\n`);
}

child.on('exit', async (code, signal) => {
  // Give processes that are already being killed a moment to disappear (poll, bounded at 15 s: a
  // process killed while in uninterruptible I/O on a loaded machine ends only when that I/O does;
  // a real leak is still there after it).
  let left = leftovers();
  for (let i = 0; i < 150 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = leftovers();
  }
  const leak = left.length === 0
    ? 'leak check: no process started by this test run is alive'
    : [`LEAK CHECK FAILED: ${left.length} process(es) started by this test run are still alive:`, ...left.map((p) => `  pid ${p.pid}: ${p.cmd}`)].join('\n');
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {}
  }
  const status = left.length > 0 ? 1 : (code ?? (signal ? 1 : 0));
  summarize([
    `holdfast tests (${process.version}): node --test exited with ${signal ?? code}`,
    takeFailures(),
    leak,
    `holdfast tests: ${status === 0 ? 'passed' : 'FAILED'}`,
  ]);
  process.exit(status);
});
