import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { processStartTime, ProtocolVersions, writeJsonAtomic, type GuardianManifest } from '@holdfast/shared/protocol';

/**
 * The guardian manifest (DESIGN §4.5, `run/g/<gid>.json`): written atomically once the socket
 * listens and the shell is spawned, rewritten when the shell pid changes (reset_shell, rc
 * fallback). pid + start time identify this guardian without pid-reuse ambiguity; `bundlePath`
 * is the absolute path of the bundle it runs. The guardian never deletes it: the daemon cleans
 * up after reading `exit.json`.
 *
 * Besides the `GuardianManifest` fields the file carries `daemonBuild` (the build of the daemon
 * that spawned it, from the spec, as GuardianSpec documents); readers ignore unknown fields.
 */
export function writeManifest(
  path: string,
  m: Omit<GuardianManifest, 'schema' | 'pid' | 'startTime' | 'proto'> & { daemonBuild: string },
): GuardianManifest & { daemonBuild: string } {
  const manifest: GuardianManifest & { daemonBuild: string } = {
    schema: 1,
    gid: m.gid,
    pid: process.pid,
    startTime: processStartTime(process.pid),
    shellPid: m.shellPid,
    socketPath: m.socketPath,
    proto: ProtocolVersions.GUARDIAN,
    build: m.build,
    bundlePath: m.bundlePath,
    createdAt: m.createdAt,
    daemonBuild: m.daemonBuild,
  };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeJsonAtomic(path, manifest);
  chmodSync(path, 0o600);
  return manifest;
}
