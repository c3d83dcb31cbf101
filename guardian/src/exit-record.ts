import { join } from 'node:path';
import { writeJsonAtomic, type ExitRecord } from '@holdfast/shared/protocol';

/**
 * The exit record (DESIGN §4.4, `sessions/<gid>/exit.json`): why the guardian ended, how the
 * shell ended, and the final offsets of the PTY and of every task stream. Written atomically
 * BEFORE the guardian exits, so a daemon that was away learns the outcome from disk.
 */
export function writeExitRecord(sessionDir: string, r: Omit<ExitRecord, 'schema' | 'endedAt'>): ExitRecord {
  const rec: ExitRecord = { schema: 1, ...r, endedAt: Date.now() };
  writeJsonAtomic(join(sessionDir, 'exit.json'), rec);
  return rec;
}
