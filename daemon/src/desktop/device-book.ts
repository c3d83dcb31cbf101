import type { ControlParsedParams, DeviceView } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import type { DesktopRepo, DeviceRow } from '../store/desktop-repo.js';
import type { EventsRepo } from '../store/events-repo.js';
import { deviceAccount, type SecretStore } from './keyring.js';

/**
 * The person's device book (issue 15 §3): `holdfast desktop device add|list|remove`. Rows live in
 * SQLite; passwords only in the OS keyring (`credential keyring`), or they are read from the
 * daemon's environment at connect time (`env:VAR`), or the server needs none (`none`).
 *
 * `add` stores the password first and writes the row only when that worked, so a missing keyring
 * leaves nothing behind (`KEYRING_UNAVAILABLE`). Adding an alias again replaces it.
 */
export class DeviceBook {
  constructor(
    private readonly repo: DesktopRepo,
    private readonly keyring: SecretStore,
    private readonly events: EventsRepo,
    private readonly home: string,
  ) {}

  /** @throws HoldfastError `KEYRING_UNAVAILABLE` (nothing is written then). */
  async add(p: ControlParsedParams<'desktop.device_add'>): Promise<{ device: DeviceView; replaced: boolean }> {
    const before = this.repo.device(p.alias);
    if (p.credential === 'keyring') await this.keyring.set(deviceAccount(p.alias, this.home), p.password!);
    const now = Date.now();
    this.repo.putDevice({
      alias: p.alias,
      host: p.host,
      port: p.port,
      credential: p.credential,
      authorization: p.authorization,
      auto_connect: p.auto_connect ? 1 : 0,
      created_at: before?.created_at ?? now,
      updated_at: now,
    });
    if (before?.credential === 'keyring' && p.credential !== 'keyring') await this.keyring.delete(deviceAccount(p.alias, this.home)).catch(() => false);
    this.events.append({ kind: before ? 'desktop.device_replaced' : 'desktop.device_added', data: { alias: p.alias, host: p.host, port: p.port, credential: p.credential, authorization: p.authorization, auto_connect: p.auto_connect } });
    return { device: this.view(this.repo.device(p.alias)!), replaced: before !== undefined };
  }

  /**
   * Saves a device the person set up in the panel (issue 16 §2). `credential`: `keyring` stores
   * `password` in the OS keyring; `ask` keeps no password anywhere — the person types it in the
   * panel for each connection (agents cannot connect it on their own); `none`: the server needs
   * none; `keep`: the device's current credential stays as it is. Like {@link add}, a keyring that
   * cannot be reached leaves nothing written.
   * @throws HoldfastError `KEYRING_UNAVAILABLE`.
   */
  async save(p: { alias: string; host: string; port: number; authorization: 'view' | 'control'; auto_connect: boolean; credential: 'keyring' | 'ask' | 'none' | 'keep'; password?: string }): Promise<{ device: DeviceView; replaced: boolean }> {
    const before = this.repo.device(p.alias);
    const credential = p.credential === 'keep' ? (before?.credential ?? 'none') : p.credential;
    if (p.credential === 'keyring') await this.keyring.set(deviceAccount(p.alias, this.home), p.password!);
    const now = Date.now();
    this.repo.putDevice({ alias: p.alias, host: p.host, port: p.port, credential, authorization: p.authorization, auto_connect: p.auto_connect ? 1 : 0, created_at: before?.created_at ?? now, updated_at: now });
    if (before?.credential === 'keyring' && credential !== 'keyring') await this.keyring.delete(deviceAccount(p.alias, this.home)).catch(() => false);
    this.events.append({ kind: before ? 'desktop.device_replaced' : 'desktop.device_added', data: { alias: p.alias, host: p.host, port: p.port, credential, authorization: p.authorization, auto_connect: p.auto_connect, by: 'panel' } });
    return { device: this.view(this.repo.device(p.alias)!), replaced: before !== undefined };
  }

  list(): DeviceView[] {
    return this.repo.devices().map((d) => this.view(d));
  }

  /** A device row. @throws HoldfastError `DEVICE_NOT_FOUND` naming the aliases there are. */
  require(alias: string): DeviceRow {
    const d = this.repo.device(alias);
    if (!d) {
      const aliases = this.repo.devices().map((x) => x.alias);
      throw new HoldfastError('DEVICE_NOT_FOUND', `no device "${alias}" is authorized; devices: ${aliases.join(', ') || '(none)'} and "virtual". The person adds one with \`holdfast desktop device add\``, {
        retryable: false,
        details: { devices: aliases },
      });
    }
    return d;
  }

  /**
   * The password to connect with (memory only), or undefined for `none`.
   * @throws HoldfastError `KEYRING_UNAVAILABLE`, `CREDENTIAL_MISSING`.
   */
  async password(d: DeviceRow): Promise<string | undefined> {
    if (d.credential === 'none') return undefined;
    if (d.credential === 'ask') {
      throw new HoldfastError('CREDENTIAL_MISSING', `device ${d.alias} has no stored password: the person types it in the desktop panel each time (ask for it with desktop_open)`, { retryable: false });
    }
    if (d.credential === 'keyring') {
      const pw = await this.keyring.get(deviceAccount(d.alias, this.home));
      if (pw === null) throw new HoldfastError('CREDENTIAL_MISSING', `the keyring holds no password for device ${d.alias}; the person runs \`holdfast desktop device add ${d.alias} …\` again`, { retryable: false });
      return pw;
    }
    const name = d.credential.slice('env:'.length);
    const pw = process.env[name];
    if (pw === undefined || pw === '') throw new HoldfastError('CREDENTIAL_MISSING', `device ${d.alias} takes its password from $${name}, which holdfastd's environment does not set`, { retryable: false });
    return pw;
  }

  /** Removes a device (and its keyring entry). The caller disconnects a live connection first. */
  async remove(alias: string): Promise<{ removed: boolean; keyring: 'deleted' | 'absent' | 'unavailable' | 'not_used' }> {
    const d = this.repo.device(alias);
    if (!d) return { removed: false, keyring: 'not_used' };
    let keyring: 'deleted' | 'absent' | 'unavailable' | 'not_used' = 'not_used';
    if (d.credential === 'keyring') {
      try {
        keyring = (await this.keyring.delete(deviceAccount(alias, this.home))) ? 'deleted' : 'absent';
      } catch {
        keyring = 'unavailable';
      }
    }
    this.repo.removeDevice(alias);
    this.events.append({ kind: 'desktop.device_removed', data: { alias, keyring } });
    return { removed: true, keyring };
  }

  private view(d: DeviceRow): DeviceView {
    const lockKey = deviceLockKey(d.alias);
    const holder = this.repo.openByLock(lockKey);
    return {
      alias: d.alias,
      host: d.host,
      port: d.port,
      credential: d.credential,
      authorization: d.authorization,
      auto_connect: d.auto_connect === 1,
      paused: this.repo.isPaused(lockKey),
      desktop_session_id: holder?.id ?? null,
      remote_session_id: holder?.session_id ?? null,
      updated_at: d.updated_at,
    };
  }
}

/** The device lock key of an alias (`desktop_sessions.lock_key`, `desktop_pauses.lock_key`). */
export function deviceLockKey(alias: string): string {
  return `device:${alias}`;
}

/** The lock key of a session's private display. */
export function virtualLockKey(remoteSessionId: string): string {
  return `virtual:${remoteSessionId}`;
}
