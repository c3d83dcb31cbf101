import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { HomeLayout } from '@holdfast/shared/paths';
import { writeFileAtomic, type TempJournal } from '../files/atomic-write.js';
import { detectCharset } from '../files/charset.js';
import { mimeTypeOf } from '../files/mime.js';
import type { ArtifactsRepo } from '../store/artifacts-repo.js';

/** What registering records about an artifact's bytes (issue 11). */
export interface ArtifactFacts {
  sha256: string;
  byte_length: number;
  /** utf-8 | utf-16le | utf-16be | iso-8859-1 | binary (files/charset.ts). */
  source_encoding: string;
  source_bom: boolean;
  mime_type: string;
}

/**
 * The facts of an artifact's bytes: sha256, length, charset and BOM (the same detection `read`
 * uses, over the whole content), and a MIME type — content first (images, known binary formats),
 * then the name (`name` may be absent for inline content).
 */
export function artifactFacts(bytes: Buffer, name: string | null): ArtifactFacts {
  const cs = detectCharset(bytes, true);
  const isText = cs.charset !== 'binary';
  const mime = mimeTypeOf(name ?? '', bytes.subarray(0, 8192), isText);
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    byte_length: bytes.length,
    source_encoding: cs.charset,
    source_bom: cs.bom,
    mime_type: mime,
  };
}

/**
 * Artifact bytes in the runtime home (issue 11): `state/artifacts/<remote_session_id>/<artifact_id>`,
 * 0600 files in 0700 folders, written atomically (temp file journalled, fsync, rename, folder
 * fsync) before the row that names them, so an acknowledged artifact survives `kill -9`. A file
 * without a row (the daemon died in between) is removed at the next start.
 */
export class ArtifactStore {
  constructor(
    private readonly layout: HomeLayout,
    private readonly journal: TempJournal,
  ) {}

  /** Path of an artifact's bytes. */
  fileOf(sessionId: string, id: string): string {
    return join(this.layout.artifactsDir, sessionId, id);
  }

  /** Writes the bytes durably. */
  async save(sessionId: string, id: string, bytes: Buffer): Promise<void> {
    mkdirSync(join(this.layout.artifactsDir, sessionId), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.fileOf(sessionId, id), bytes, { mode: 0o600, journal: this.journal });
  }

  /**
   * A reader of `[from, to)` of an artifact's bytes (clipped to its size); call `close` after use.
   * @throws the fs error when the file is gone.
   */
  open(sessionId: string, id: string): { size: number; read: (from: number, to: number) => Buffer; close: () => void } {
    const fd = openSync(this.fileOf(sessionId, id), 'r');
    const size = fstatSync(fd).size;
    return {
      size,
      read: (from, to) => {
        const a = Math.max(0, Math.min(from, size));
        const b = Math.max(a, Math.min(to, size));
        const out = Buffer.allocUnsafe(b - a);
        let got = 0;
        while (got < out.length) {
          const n = readSync(fd, out, got, out.length - got, a + got);
          if (n === 0) break;
          got += n;
        }
        return out.subarray(0, got);
      },
      close: () => closeSync(fd),
    };
  }

  /** Removes an artifact's bytes (and its session folder once empty). */
  remove(sessionId: string, id: string): void {
    rmSync(this.fileOf(sessionId, id), { force: true });
    try {
      if (readdirSync(join(this.layout.artifactsDir, sessionId)).length === 0) rmSync(join(this.layout.artifactsDir, sessionId), { recursive: true, force: true });
    } catch {
      // already gone
    }
  }

  /** Bytes on disk under `state/artifacts` (doctor). */
  diskBytes(): number {
    return folderBytes(this.layout.artifactsDir);
  }

  /**
   * Start-up: removes artifact files that have no row (the daemon died after writing the file and
   * before recording it). @returns the paths removed.
   */
  sweepOrphans(repo: ArtifactsRepo): string[] {
    const removed: string[] = [];
    let sessions: string[];
    try {
      sessions = readdirSync(this.layout.artifactsDir);
    } catch {
      return removed;
    }
    for (const s of sessions) {
      const known = repo.idsOfSession(s);
      let names: string[];
      try {
        names = readdirSync(join(this.layout.artifactsDir, s));
      } catch {
        continue;
      }
      for (const n of names) {
        if (known.has(n) || n.startsWith('.')) continue; // temp files belong to the temp-file journal
        rmSync(join(this.layout.artifactsDir, s, n), { force: true });
        removed.push(join(this.layout.artifactsDir, s, n));
      }
    }
    return removed;
  }
}

/** Total size of the regular files under a folder, bytes (0 when it does not exist). */
export function folderBytes(dir: string): number {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    try {
      total += statSync(join(e.parentPath, e.name)).size;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
