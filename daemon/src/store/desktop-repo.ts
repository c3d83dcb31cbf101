import type { Authorization } from '@holdfast/shared/protocol';
import type { Db } from './db.js';

/** One device of the person's book (issue 15 `holdfast desktop device add`). */
export interface DeviceRow {
  alias: string;
  host: string;
  port: number;
  /** `keyring`, `env:VAR` or `none`. */
  credential: string;
  authorization: Authorization;
  auto_connect: number;
  created_at: number;
  updated_at: number;
}

/** One desktop session the daemon opened (its open row is the device lock). */
export interface DesktopSessionRow {
  id: string;
  session_id: string;
  principal: string;
  device: string;
  lock_key: string;
  created_at: number;
  ended_at: number | null;
  end_reason: string | null;
}

export interface ViewRow {
  id: string;
  session_id: string;
  principal: string;
  device: string | null;
  created_at: number;
}

/**
 * Repository of the desktop tables (migration desktop-migration.ts): the device book, desktop
 * sessions (the device lock is the unique index over open rows' `lock_key`), the person's
 * pauses, and the view index. All writes go through here.
 */
export class DesktopRepo {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      putDevice: db.prepare(
        `INSERT INTO desktop_devices (alias, host, port, credential, authorization, auto_connect, created_at, updated_at)
         VALUES (@alias, @host, @port, @credential, @authorization, @auto_connect, @created_at, @updated_at)
         ON CONFLICT (alias) DO UPDATE SET host = excluded.host, port = excluded.port, credential = excluded.credential,
           authorization = excluded.authorization, auto_connect = excluded.auto_connect, updated_at = excluded.updated_at`,
      ),
      device: db.prepare<[string], DeviceRow>('SELECT * FROM desktop_devices WHERE alias = ?'),
      devices: db.prepare<[], DeviceRow>('SELECT * FROM desktop_devices ORDER BY alias'),
      removeDevice: db.prepare<[string]>('DELETE FROM desktop_devices WHERE alias = ?'),
      insertSession: db.prepare(
        `INSERT INTO desktop_sessions (id, session_id, principal, device, lock_key, created_at) VALUES (@id, @session_id, @principal, @device, @lock_key, @created_at)`,
      ),
      session: db.prepare<[string], DesktopSessionRow>('SELECT * FROM desktop_sessions WHERE id = ?'),
      openByLock: db.prepare<[string], DesktopSessionRow>('SELECT * FROM desktop_sessions WHERE lock_key = ? AND ended_at IS NULL'),
      openOfSession: db.prepare<[string], DesktopSessionRow>('SELECT * FROM desktop_sessions WHERE session_id = ? AND ended_at IS NULL ORDER BY created_at'),
      allOpen: db.prepare<[], DesktopSessionRow>('SELECT * FROM desktop_sessions WHERE ended_at IS NULL ORDER BY created_at'),
      endSession: db.prepare<[number, string, string]>('UPDATE desktop_sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL'),
      pause: db.prepare<[string, number]>('INSERT INTO desktop_pauses (lock_key, paused_at) VALUES (?, ?) ON CONFLICT (lock_key) DO NOTHING'),
      resume: db.prepare<[string]>('DELETE FROM desktop_pauses WHERE lock_key = ?'),
      paused: db.prepare<[string], { paused_at: number }>('SELECT paused_at FROM desktop_pauses WHERE lock_key = ?'),
      insertView: db.prepare('INSERT INTO desktop_views (id, session_id, principal, device, created_at) VALUES (@id, @session_id, @principal, @device, @created_at)'),
      view: db.prepare<[string], ViewRow>('SELECT * FROM desktop_views WHERE id = ?'),
      purgeViews: db.prepare<[number]>('DELETE FROM desktop_views WHERE created_at < ?'),
    };
  }

  putDevice(row: DeviceRow): void {
    this.s.putDevice.run(row);
  }

  device(alias: string): DeviceRow | undefined {
    return this.s.device.get(alias);
  }

  devices(): DeviceRow[] {
    return this.s.devices.all();
  }

  /** Removes a device from the book; true when it was there. */
  removeDevice(alias: string): boolean {
    return this.s.removeDevice.run(alias).changes > 0;
  }

  /**
   * Records a new open desktop session.
   * @throws the SQLite UNIQUE error when another open row holds `lock_key` (the device lock).
   */
  insertSession(row: Omit<DesktopSessionRow, 'ended_at' | 'end_reason'>): void {
    this.s.insertSession.run(row);
  }

  session(id: string): DesktopSessionRow | undefined {
    return this.s.session.get(id);
  }

  /** The open desktop session holding `lockKey`, if any. */
  openByLock(lockKey: string): DesktopSessionRow | undefined {
    return this.s.openByLock.get(lockKey);
  }

  openOfSession(sessionId: string): DesktopSessionRow[] {
    return this.s.openOfSession.all(sessionId);
  }

  allOpen(): DesktopSessionRow[] {
    return this.s.allOpen.all();
  }

  /** Ends a desktop session (releases its lock); no-op when already ended. */
  endSession(id: string, reason: string, at = Date.now()): boolean {
    return this.s.endSession.run(at, reason, id).changes > 0;
  }

  pause(lockKey: string, at = Date.now()): void {
    this.s.pause.run(lockKey, at);
  }

  resume(lockKey: string): boolean {
    return this.s.resume.run(lockKey).changes > 0;
  }

  isPaused(lockKey: string): boolean {
    return this.s.paused.get(lockKey) !== undefined;
  }

  insertView(row: ViewRow, purgeBefore: number): void {
    this.s.purgeViews.run(purgeBefore);
    this.s.insertView.run(row);
  }

  view(id: string): ViewRow | undefined {
    return this.s.view.get(id);
  }
}
