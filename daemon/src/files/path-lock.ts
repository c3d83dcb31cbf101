/**
 * Keyed async mutex: edits and moves of the same real path run one after another inside the
 * daemon, so a check (sha, read-before-edit) and the write that follows it cannot interleave with
 * another call's. Keys are taken in sorted order by {@link PathLocks.withAll} (no deadlocks).
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` while holding every key (sorted, deduplicated). */
  async withAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const releases: (() => void)[] = [];
    try {
      for (const k of sorted) releases.push(await this.acquire(k));
      return await fn();
    } finally {
      for (const r of releases.reverse()) r();
    }
  }

  private async acquire(key: string): Promise<() => void> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
