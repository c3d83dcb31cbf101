import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { basename, join } from 'node:path';

/**
 * CPU profiles of holdfast's own processes under the bench. Node 20 refuses `--cpu-prof` in
 * `NODE_OPTIONS`, so {@link ../profile.ts} passes `--import <this file>` there instead: in a
 * process whose entry script (argv[1]) matches `HOLDFAST_CPU_PROF_MATCH` (a regular expression,
 * e.g. `daemon/dist/main|adapter/dist/cli/main`) this starts the `node:inspector` Profiler at load
 * and writes `<HOLDFAST_CPU_PROF_DIR>/<script>-<pid>.cpuprofile` when the process exits (the
 * inspector session answers synchronously, so an `exit` listener can still stop and save it).
 * Any other process (guardian, shells' node children) is left alone. Bench-only: never loaded by
 * holdfast itself.
 */
const dir = process.env.HOLDFAST_CPU_PROF_DIR;
const match = process.env.HOLDFAST_CPU_PROF_MATCH;
const script = process.argv[1] ?? '';
if (dir && match && new RegExp(match).test(script)) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  // 100 µs sampling: a 1 KB read costs about a millisecond, the default 1 ms would miss stages.
  session.post('Profiler.setSamplingInterval', { interval: 100 });
  session.post('Profiler.start');
  let saved = false;
  const save = (): void => {
    if (saved) return;
    saved = true;
    session.post('Profiler.stop', (err, res) => {
      if (err) return;
      const name = `${basename(script).replace(/\.[cm]?js$/, '')}-${script.includes('daemon') ? 'daemon' : script.includes('adapter') ? 'adapter' : 'proc'}-${process.pid}.cpuprofile`;
      writeFileSync(join(dir, name), JSON.stringify(res.profile));
    });
  };
  process.on('exit', save);
}
