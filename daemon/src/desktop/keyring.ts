import type { AsyncEntry } from '@napi-rs/keyring';
import { HoldfastError } from '@holdfast/shared/errors';

/** Service name of holdfast's entries in the OS keyring. */
const SERVICE = 'holdfast';
/** A keyring call that takes longer than this (a hung D-Bus activation) counts as unavailable, ms. */
const KEYRING_TIMEOUT_MS = 10_000;

/** Where VNC passwords live (issue 15): set, get, delete by account name. */
export interface SecretStore {
  set(account: string, secret: string): Promise<void>;
  get(account: string): Promise<string | null>;
  delete(account: string): Promise<boolean>;
}

/**
 * The OS keyring through the freedesktop Secret Service (`@napi-rs/keyring`, async API, pinned
 * to `secret-service` so it never falls back to the kernel keyring or anything else). Entries are
 * service `holdfast`, account `desktop/<alias> (<HOLDFAST_HOME>)`, visible in the person's
 * keyring manager. Any failure to reach the service — no D-Bus session, no Secret Service, a
 * locked keyring whose prompt cannot be shown — is `KEYRING_UNAVAILABLE`, and nothing is
 * written anywhere else: there is no plaintext fallback.
 */
export class OsKeyring implements SecretStore {
  async set(account: string, secret: string): Promise<void> {
    await this.call('store the password', (e, signal) => e.setPassword(secret, signal), account);
  }

  async get(account: string): Promise<string | null> {
    return this.call('read the password', (e, signal) => e.getPassword(signal), account);
  }

  async delete(account: string): Promise<boolean> {
    return this.call('delete the password', (e, signal) => e.deleteCredential(signal), account);
  }

  private async call<T>(what: string, fn: (e: AsyncEntry, signal: AbortSignal) => Promise<T>, account: string): Promise<T> {
    const signal = AbortSignal.timeout(KEYRING_TIMEOUT_MS);
    try {
      // Loaded on first use (a native module an idle daemon without desktop devices never needs, issue 10).
      const { AsyncEntry: Entry } = await import('@napi-rs/keyring');
      const entry = new Entry(SERVICE, account, { linux: { store: 'secret-service' } });
      return await fn(entry, signal);
    } catch (err) {
      const reason = signal.aborted ? `no answer within ${KEYRING_TIMEOUT_MS / 1000} s` : (err as Error).message.split('\n')[0];
      throw new HoldfastError(
        'KEYRING_UNAVAILABLE',
        `cannot ${what}: no OS keyring (Secret Service) is reachable (${reason}). Start one (e.g. gnome-keyring in your desktop session) or use --credential env:VAR; holdfast never stores passwords in plaintext`,
        { retryable: false },
      );
    }
  }
}

/** The keyring account of a device in one holdfast home. */
export function deviceAccount(alias: string, home: string): string {
  return `desktop/${alias} (${home})`;
}
