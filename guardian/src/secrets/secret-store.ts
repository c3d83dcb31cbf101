import { HoldfastError, SecretLimits, type SecretInfo, type SecretListResult, type SecretPutParams, type SecretRequestInfo } from '@holdfast/shared/protocol';
import { NO_PATTERNS, patternSet, type PatternSet } from './redactor.js';

interface Held {
  value: Buffer;
  info: SecretInfo;
}

interface Requested {
  info: SecretRequestInfo;
}

/**
 * The session's secrets (DESIGN §5.1, issue 12): values given by the user, held in this process's
 * memory only — never written to a file, a log or the daemon — for as long as the session lives
 * (they survive adapter kills and daemon restarts; a forgotten value's buffer is zeroed). Keeps
 * the redaction {@link PatternSet} every output stream uses, and the requests the model made that
 * the user has not answered yet (their purpose is what `holdfast secret provide` shows).
 */
export class SecretStore {
  private readonly held = new Map<string, Held>();
  private readonly requests = new Map<string, Requested>();
  private set: PatternSet = NO_PATTERNS;
  private readonly waiters = new Set<() => void>();

  /** The redaction patterns in force (cheap: a new object only when secrets change). */
  readonly patterns = (): PatternSet => this.set;

  /**
   * Stores a value from the user (replacing an earlier one of that name).
   * @throws HoldfastError BAD_REQUEST for an empty, too short or too long value, a NUL byte, or too many secrets.
   */
  put(p: SecretPutParams): { replaced: boolean } {
    const value = Buffer.from(p.value, 'utf8');
    if (value.length < SecretLimits.VALUE_MIN_BYTES || value.length > SecretLimits.VALUE_MAX_BYTES) {
      throw new HoldfastError('BAD_REQUEST', `a secret is ${SecretLimits.VALUE_MIN_BYTES} to ${SecretLimits.VALUE_MAX_BYTES} bytes long (shorter values would hide ordinary output)`);
    }
    if (value.includes(0)) throw new HoldfastError('BAD_REQUEST', 'a secret cannot contain a NUL byte (it is passed as an environment variable)');
    const before = this.held.get(p.name);
    if (!before && this.held.size >= SecretLimits.PER_SESSION_MAX) throw new HoldfastError('BAD_REQUEST', `a session holds at most ${SecretLimits.PER_SESSION_MAX} secrets; forget one first`);
    const purpose = p.purpose ?? this.requests.get(p.name)?.info.purpose ?? before?.info.purpose ?? '';
    before?.value.fill(0);
    this.held.set(p.name, { value, info: { name: p.name, purpose, providedAt: Date.now(), via: p.via } });
    this.requests.delete(p.name);
    this.rebuild();
    return { replaced: before !== undefined };
  }

  /** Drops a value (its buffer zeroed) and any open request for it. True when something was held. */
  forget(name: string): boolean {
    const h = this.held.get(name);
    this.requests.delete(name);
    if (!h) return false;
    h.value.fill(0);
    this.held.delete(name);
    this.rebuild();
    return true;
  }

  /** Records the model's request for `name` (kept until the value arrives or is forgotten). */
  request(name: string, purpose: string, page?: SecretRequestInfo['page']): SecretRequestInfo {
    const info: SecretRequestInfo = { name, purpose, requestedAt: this.requests.get(name)?.info.requestedAt ?? Date.now(), ...(page ? { page } : {}) };
    this.requests.set(name, { info });
    this.wake();
    return { ...info };
  }

  /** Updates the page state of an open request (paired, declined, gone). */
  setPage(name: string, page: SecretRequestInfo['page'] | undefined): void {
    const r = this.requests.get(name);
    if (!r) return;
    if (page) r.info.page = page;
    else delete r.info.page;
    this.wake();
  }

  has(name: string): boolean {
    return this.held.has(name);
  }

  /** Names, purposes and times: never values. */
  list(): SecretListResult {
    return {
      secrets: [...this.held.values()].map((h) => ({ ...h.info })),
      requests: [...this.requests.values()].map((r) => ({ ...r.info, ...(r.info.page ? { page: { ...r.info.page } } : {}) })),
    };
  }

  /**
   * The values of `names` as strings, for one command's environment.
   * @throws HoldfastError SECRET_NOT_FOUND naming what is not held.
   */
  values(names: readonly string[]): Record<string, string> {
    this.requireHeld(names);
    const out: Record<string, string> = {};
    for (const n of names) out[n] = this.held.get(n)!.value.toString('utf8');
    return out;
  }

  /**
   * Copies of the values of `names` as bytes (the caller zeroes them when done).
   * @throws HoldfastError SECRET_NOT_FOUND naming what is not held.
   */
  buffers(names: readonly string[]): Record<string, Buffer> {
    this.requireHeld(names);
    const out: Record<string, Buffer> = {};
    for (const n of names) out[n] = Buffer.from(this.held.get(n)!.value);
    return out;
  }

  private requireHeld(names: readonly string[]): void {
    const missing = names.filter((n) => !this.held.has(n));
    if (missing.length > 0) throw new HoldfastError('SECRET_NOT_FOUND', `no secret ${missing.join(', ')} in this session; ask for it with secret_provide(name="${missing[0]}")`, { details: { missing } });
  }

  /** Resolves when `ready()` holds, something changes and it holds then, or at `ms`. */
  async waitFor(ready: () => boolean, ms: number, signal?: AbortSignal): Promise<void> {
    const until = Date.now() + ms;
    while (!ready() && Date.now() < until && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, until - Date.now()));
        this.waiters.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Zeroes and drops everything (the session ends). */
  clear(): void {
    for (const h of this.held.values()) h.value.fill(0);
    this.held.clear();
    this.requests.clear();
    this.rebuild();
  }

  private rebuild(): void {
    this.set = this.held.size === 0 ? NO_PATTERNS : patternSet([...this.held.values()].map((h) => ({ name: h.info.name, value: h.value })));
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
