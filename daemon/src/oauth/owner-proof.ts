import { createHash, randomBytes, randomInt, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthConfig } from '@holdfast/shared/config';
import type { HomeLayout } from '@holdfast/shared/paths';
import type { AuditLog } from '../audit.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';

/** scrypt cost of the owner password hash (RFC 7914; N = 2^15 uses 32 MiB). */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 } as const;
/** Alphabet of one-time codes: Crockford base32 (no I, L, O, U). 10 characters = 50 bits. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 10;

/** How an approval was proven. */
export type ProofKind = 'password' | 'code';

/** The outcome of a proof: ok, or why not (a value, not an error). */
export type ProofOutcome =
  | { ok: true; by: ProofKind }
  | { ok: false; reason: 'wrong_proof' | 'locked' | 'no_proof'; message: string; locked_until?: number };

interface StoredHash {
  alg: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  hash: string;
}

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));
}

/** A code as typed: upper case, without separators. */
function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

function codeHash(code: string): string {
  return createHash('sha256').update(normalizeCode(code)).digest('hex');
}

/**
 * Proof that the person approving an OAuth client at the consent page owns the machine (issue 14,
 * docs/oauth.md "Consent"): the owner password (`holdfast oauth set-password`; scrypt hash in
 * `<home>/oauth/owner-password`, 0600) or a one-time code that `holdfast oauth approve` prints in
 * the owner's terminal (sha256 only is stored; single use; `approval_code_ttl_s`).
 *
 * Wrong passwords are counted in the database (so neither an adapter nor a daemon restart resets
 * them): after `password_max_failures` in a row, approval by password is locked for
 * `password_lockout_s` — even the right password is refused then — and the lock is written to the
 * daemon log and the audit log with the source address. A one-time code still works while the
 * password is locked: it proves presence at the owner's terminal, and 50 random bits are not
 * guessed within the HTTP rate limit. Wrong codes count as failures too.
 */
export class OwnerProof {
  private readonly passwordFile: string;

  constructor(
    private readonly db: Db,
    private readonly layout: HomeLayout,
    private readonly config: () => OAuthConfig,
    private readonly log: Logger,
    private readonly audit: AuditLog,
  ) {
    this.passwordFile = join(layout.oauthDir, 'owner-password');
  }

  /** Whether a password is set, and until when (epoch ms) approval by password is locked. */
  status(now = Date.now()): { password_set: boolean; locked_until: number | null } {
    const lockedUntil = this.lockedUntil();
    return { password_set: existsSync(this.passwordFile), locked_until: lockedUntil > now ? lockedUntil : null };
  }

  /** Sets (or replaces) the owner password; clears failures and the lock. */
  async setPassword(password: string): Promise<{ replaced: boolean }> {
    const replaced = existsSync(this.passwordFile);
    const salt = randomBytes(16);
    const hash = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: SCRYPT.maxmem });
    const stored: StoredHash = { alg: 'scrypt', N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, salt: salt.toString('base64'), hash: hash.toString('base64') };
    mkdirSync(this.layout.oauthDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.passwordFile, Buffer.from(JSON.stringify(stored) + '\n'), { mode: 0o600 });
    this.db.prepare('UPDATE oauth_owner SET failures = 0, locked_until = 0 WHERE id = 1').run();
    this.log.info('oauth owner password set', { replaced });
    return { replaced };
  }

  /** A new one-time approval code (`XXXXX-XXXXX`) and when it expires (epoch ms). */
  newCode(now = Date.now()): { code: string; expires_at: number } {
    let raw = '';
    for (let i = 0; i < CODE_LENGTH; i++) raw += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const expiresAt = now + this.config().approval_code_ttl_s * 1000;
    this.db.prepare('DELETE FROM oauth_codes WHERE expires_at <= ?').run(now);
    this.db.prepare('INSERT INTO oauth_codes (hash, created_at, expires_at) VALUES (?, ?, ?)').run(codeHash(raw), now, expiresAt);
    return { code: `${raw.slice(0, 5)}-${raw.slice(5)}`, expires_at: expiresAt };
  }

  /**
   * Checks a proof: a code (used up when right), else a password (refused while locked).
   * @param source the address the consent page was submitted from (logged with failures).
   */
  async verify(proof: { password?: string | undefined; code?: string | undefined }, source: string, now = Date.now()): Promise<ProofOutcome> {
    const code = proof.code?.trim();
    const password = proof.password;
    if (code) {
      const used = this.db.prepare('DELETE FROM oauth_codes WHERE hash = ? AND expires_at > ?').run(codeHash(code), now).changes === 1;
      if (used) return { ok: true, by: 'code' };
      return this.failed('code', source, now);
    }
    if (password) {
      const lockedUntil = this.lockedUntil();
      if (lockedUntil > now) return { ok: false, reason: 'locked', message: lockedMessage(lockedUntil), locked_until: lockedUntil };
      const stored = this.readHash();
      if (!stored) return { ok: false, reason: 'no_proof', message: 'no owner password is set (holdfast oauth set-password); use a one-time code from `holdfast oauth approve`' };
      const expected = Buffer.from(stored.hash, 'base64');
      const got = await scrypt(password, Buffer.from(stored.salt, 'base64'), expected.length, { N: stored.N, r: stored.r, p: stored.p, maxmem: SCRYPT.maxmem });
      if (got.length === expected.length && timingSafeEqual(got, expected)) {
        this.db.prepare('UPDATE oauth_owner SET failures = 0 WHERE id = 1').run();
        return { ok: true, by: 'password' };
      }
      return this.failed('password', source, now);
    }
    return { ok: false, reason: 'no_proof', message: 'enter the owner password or a one-time code from `holdfast oauth approve`' };
  }

  private failed(kind: ProofKind, source: string, now: number): ProofOutcome {
    const cfg = this.config();
    const row = this.db.prepare<[], { failures: number }>('SELECT failures FROM oauth_owner WHERE id = 1').get()!;
    const failures = row.failures + 1;
    if (failures >= cfg.password_max_failures) {
      const lockedUntil = now + cfg.password_lockout_s * 1000;
      this.db.prepare('UPDATE oauth_owner SET failures = 0, locked_until = ?, last_failure_at = ? WHERE id = 1').run(lockedUntil, now);
      const fields = { failures, source, locked_until: new Date(lockedUntil).toISOString(), last_attempt: kind };
      this.log.warn('oauth owner approvals by password locked after repeated wrong proofs', fields);
      try {
        this.audit.append({ event: 'oauth.owner_locked', principal: 'owner', ...fields });
      } catch {
        // the daemon log has it
      }
      return { ok: false, reason: 'locked', message: lockedMessage(lockedUntil), locked_until: lockedUntil };
    }
    this.db.prepare('UPDATE oauth_owner SET failures = ?, last_failure_at = ? WHERE id = 1').run(failures, now);
    this.log.warn('oauth owner proof refused', { kind, source, failures });
    return { ok: false, reason: 'wrong_proof', message: kind === 'code' ? 'that one-time code is wrong, used or expired' : 'wrong owner password' };
  }

  private lockedUntil(): number {
    return this.db.prepare<[], { locked_until: number }>('SELECT locked_until FROM oauth_owner WHERE id = 1').get()!.locked_until;
  }

  private readHash(): StoredHash | null {
    try {
      const v = JSON.parse(readFileSync(this.passwordFile, 'utf8')) as StoredHash;
      return v.alg === 'scrypt' ? v : null;
    } catch {
      return null;
    }
  }
}

function lockedMessage(until: number): string {
  return `approval by password is locked until ${new Date(until).toISOString()} after repeated wrong attempts; use a one-time code from \`holdfast oauth approve\``;
}
