import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HomeLayout } from '@holdfast/shared/paths';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';

/** A private JSON Web Key as oidc-provider's `jwks` option takes it. */
export type PrivateJwk = Record<string, unknown> & { kid: string };

/** The signing algorithm of holdfast's access tokens (RS256: what oidc-provider signs ID tokens with by default, too). */
export const SIGNING_ALG = 'RS256';
const RSA_BITS = 2048;

interface KeyRow {
  kid: string;
  alg: string;
  created_at: number;
  retired_at: number | null;
}

/**
 * The authorization server's signing keys (issue 14, docs/oauth.md "Keys"). Metadata in
 * `oauth_keys`; each private key is one JWK file `<home>/oauth/keys/<kid>.json` (0600, in a 0700
 * folder), created exclusively so a planted file is never overwritten. The newest key signs;
 * after `rotate()` the previous ones stay for verification until `verifyWindowMs` after their
 * retirement (every token they signed has expired by then), then their files are deleted.
 * Also keeps the cookie-signing secret of the consent flow (`cookie-keys.json`, 0600).
 */
export class SigningKeys {
  private readonly dir: string;

  constructor(
    private readonly db: Db,
    layout: HomeLayout,
    private readonly log: Logger,
  ) {
    this.dir = join(layout.oauthDir, 'keys');
  }

  /**
   * Private keys, the signing key first, then retired keys still within `verifyWindowMs`;
   * creates the first key when there is none, and drops keys past their window.
   */
  jwks(verifyWindowMs: number, now = Date.now()): PrivateJwk[] {
    this.prune(verifyWindowMs, now);
    let rows = this.rows();
    if (!rows.some((r) => r.retired_at === null)) {
      this.create(now);
      rows = this.rows();
    }
    const ordered = [...rows.filter((r) => r.retired_at === null), ...rows.filter((r) => r.retired_at !== null)];
    const out: PrivateJwk[] = [];
    for (const r of ordered) {
      const jwk = this.readKey(r.kid);
      if (jwk) out.push(jwk);
    }
    return out;
  }

  /**
   * `holdfast oauth rotate-keys`: a new signing key; the current one is retired (kept for
   * verification), keys past their window are removed.
   */
  rotate(verifyWindowMs: number, now = Date.now()): { kid: string; retired: string[]; removed: string[] } {
    const current = this.rows().filter((r) => r.retired_at === null).map((r) => r.kid);
    this.db.prepare('UPDATE oauth_keys SET retired_at = ? WHERE retired_at IS NULL').run(now);
    const kid = this.create(now + 1);
    const removed = this.prune(verifyWindowMs, now);
    this.log.info('oauth signing keys rotated', { kid, retired: current, removed });
    return { kid, retired: current, removed };
  }

  /** The secret(s) signing the consent flow's cookies (created once). */
  cookieKeys(): string[] {
    const file = join(this.ensureDir(), '..', 'cookie-keys.json');
    if (!existsSync(file)) {
      try {
        writeFileSync(file, JSON.stringify([randomBytes(32).toString('base64url')]), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    this.tighten(file);
    return JSON.parse(readFileSync(file, 'utf8')) as string[];
  }

  private rows(): KeyRow[] {
    return this.db.prepare<[], KeyRow>('SELECT * FROM oauth_keys ORDER BY created_at DESC').all();
  }

  private create(now: number): string {
    const kid = randomBytes(12).toString('base64url');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: RSA_BITS });
    const jwk = { ...(privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid, alg: SIGNING_ALG, use: 'sig' };
    writeFileSync(join(this.ensureDir(), `${kid}.json`), JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
    this.db.prepare('INSERT INTO oauth_keys (kid, alg, created_at, retired_at) VALUES (?, ?, ?, NULL)').run(kid, SIGNING_ALG, now);
    this.log.info('oauth signing key created', { kid });
    return kid;
  }

  private prune(verifyWindowMs: number, now: number): string[] {
    const gone = this.rows().filter((r) => r.retired_at !== null && r.retired_at + verifyWindowMs <= now);
    for (const r of gone) {
      rmSync(join(this.dir, `${r.kid}.json`), { force: true });
      this.db.prepare('DELETE FROM oauth_keys WHERE kid = ?').run(r.kid);
    }
    return gone.map((r) => r.kid);
  }

  private readKey(kid: string): PrivateJwk | null {
    const file = join(this.dir, `${kid}.json`);
    try {
      this.tighten(file);
      return JSON.parse(readFileSync(file, 'utf8')) as PrivateJwk;
    } catch (err) {
      this.log.warn('oauth signing key file unreadable; skipped', { kid, error: (err as Error).message });
      return null;
    }
  }

  private ensureDir(): string {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(join(this.dir, '..'), 0o700);
    chmodSync(this.dir, 0o700);
    return this.dir;
  }

  /** Private keys are 0600: fix looser permissions (and say so). */
  private tighten(file: string): void {
    const mode = statSync(file).mode & 0o777;
    if (mode !== 0o600) {
      chmodSync(file, 0o600);
      this.log.warn('oauth key file had loose permissions; set to 0600', { file, mode: mode.toString(8) });
    }
  }
}
