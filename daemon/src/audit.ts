import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';

/**
 * The audit log (DESIGN §2 `logs/audit.jsonl`, issue 5; docs/command-policy.md): one JSON line
 * per decision about something a session's shell is asked to do — a command run, refused, held
 * for confirmation or confirmed, text typed into a running program, a stop. The line for a run is
 * appended BEFORE the guardian receives the command; when it cannot be written the command is not
 * run (`append` throws). Lines are written with one `write(2)` on an `O_APPEND` descriptor (0600),
 * so they survive a daemon crash; they are not fsynced per call (power loss may drop the tail).
 *
 * Never logged: environment values, text typed through `stdin` (answers to password prompts) —
 * only its length and the named keys.
 *
 * Rotation (docs/command-policy.md "Audit"): before a line would take the file past `maxBytes` (default
 * 64 MiB), `audit.jsonl` becomes `audit.jsonl.1`, `.1` becomes `.2` … up to `keep` old files
 * (default 9; the oldest is dropped), so the log never grows without bound and the last
 * ≈ 640 MiB of decisions stay on disk. An external `logrotate` that moves the file works too:
 * the log reopens when the path no longer names its descriptor's file.
 */
export interface AuditEntry {
  /** `execute.run`, `execute.refused`, `execute.confirmation_requested`, `execute.stdin`, `execute.stop`, … */
  event: string;
  principal: string;
  /** Absent for events of no session (OAuth owner lockout, issue 14). */
  remote_session_id?: string;
  execution_task_id?: string;
  kind?: string;
  command?: string;
  argv?: string[];
  task?: string;
  cwd?: string;
  env_keys?: string[];
  purpose?: string;
  decision?: string;
  rule?: string;
  reason?: string;
  confirmed?: boolean;
  request_id?: string;
  [extra: string]: unknown;
}

/** Defaults of {@link AuditLog} rotation. */
export const AUDIT_ROTATION = { maxBytes: 64 * 1024 * 1024, keep: 9 } as const;

export class AuditLog {
  private fd: number | null = null;
  /** Size of the open file as far as this process knows (bytes). */
  private size = 0;

  constructor(
    readonly path: string,
    private readonly rotation: { maxBytes: number; keep: number } = AUDIT_ROTATION,
  ) {}

  /**
   * Appends one line (`at` = ISO time added).
   * @throws HoldfastError `INTERNAL` (retryable) when the line could not be written: the caller
   *   must not run the command.
   */
  append(entry: AuditEntry): void {
    const line = `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        let fd = this.open();
        const bytes = Buffer.byteLength(line);
        if (this.size > 0 && this.size + bytes > this.rotation.maxBytes) {
          this.rotate();
          fd = this.open();
        }
        writeSync(fd, line);
        this.size += bytes;
        return;
      } catch (err) {
        this.close();
        if (attempt === 1) {
          throw new HoldfastError('INTERNAL', `the audit log ${this.path} cannot be written (${(err as Error).message}); nothing was run — fix the log's folder or disk and retry`, {
            retryable: true,
            details: { audit: this.path },
          });
        }
      }
    }
  }

  close(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed
      }
    }
    this.fd = null;
  }

  private open(): number {
    if (this.fd !== null) {
      // Reopen when the file was removed or rotated away under the open descriptor.
      const onDisk = statSync(this.path, { throwIfNoEntry: false });
      if (!onDisk || onDisk.ino !== fstatSync(this.fd).ino) this.close();
    }
    if (this.fd === null) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.fd = openSync(this.path, 'a', 0o600);
      fchmodSync(this.fd, 0o600);
    }
    // Another writer of the same file (the file tools' log) may have appended: trust the disk.
    this.size = fstatSync(this.fd).size;
    return this.fd;
  }

  /** `audit.jsonl` → `.1`, `.1` → `.2`, … (the `keep`-th is overwritten). */
  private rotate(): void {
    this.close();
    for (let n = this.rotation.keep - 1; n >= 1; n--) {
      try {
        renameSync(`${this.path}.${n}`, `${this.path}.${n + 1}`);
      } catch {
        // that generation does not exist yet
      }
    }
    if (this.rotation.keep >= 1) renameSync(this.path, `${this.path}.1`);
    this.size = 0;
  }
}
