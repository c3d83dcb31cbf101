import type { Logger } from '../log.js';
import type { SessionManager } from './manager.js';
import { pickExpired } from './quota.js';

/**
 * The TTL reaper (DESIGN §4.3): every `intervalMs`, ends sessions idle longer than their tier
 * (never executed → `ttl_never_executed_s`, executed → `ttl_executed_s`); a busy session is never
 * reaped. Also notices guardians that died without telling anyone.
 */
export class Reaper {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly manager: SessionManager,
    private readonly intervalMs: () => number,
    private readonly log: Logger,
  ) {}

  start(): void {
    const tick = (): void => {
      this.timer = setTimeout(() => {
        void this.tick().finally(() => {
          if (this.timer) tick();
        });
      }, this.intervalMs());
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One pass; returns the ids it ended. */
  async tick(): Promise<string[]> {
    if (this.running) return [];
    this.running = true;
    try {
      const facts = await this.manager.liveFacts();
      for (const f of facts) if (!f.reachable) await this.manager.checkGone(f.id);
      const expired = pickExpired(facts, (e) => this.manager.ttlMs(e));
      for (const id of expired) {
        this.log.info('reaping idle session', { session: id });
        await this.manager.end(id, 'reaped').catch((err: Error) => this.log.warn('reap failed', { session: id, error: err.message }));
      }
      return expired;
    } finally {
      this.running = false;
    }
  }
}
