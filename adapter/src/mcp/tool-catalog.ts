import { createHash } from 'node:crypto';
import { TOOLS, toolListing, type ToolDef, type ToolListing } from '@holdfast/shared/tools';
import type { RetryPolicy } from '../daemon-client.js';
import type { Principal } from './principals.js';

/** One served tool: its contract, its rendered `tools/list` entry and how a call may be retried. */
export interface CatalogEntry {
  def: ToolDef;
  listing: ToolListing;
  /** Read-only and idempotent tools are re-sent after a daemon reconnect; others are not (DESIGN §4.5). */
  retry: RetryPolicy;
}

/**
 * The served tool catalogue (DESIGN §6.3, §6.4), rendered once at start-up: JSON Schemas are built
 * a single time and every `tools/list` answer reuses the same objects, filtered per principal
 * (one cached array per distinct tool set).
 */
export class ToolCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  private readonly lists = new Map<string, readonly ToolListing[]>();
  private readonly callable = new Map<string, string[]>();
  /** Hash of every rendered listing: changes whenever a schema, description or annotation does. */
  readonly revision: string;

  constructor(tools: readonly ToolDef[] = TOOLS) {
    const hash = createHash('sha256');
    for (const def of tools) {
      const listing = toolListing(def);
      const retry: RetryPolicy = def.annotations.readOnlyHint || def.annotations.idempotentHint ? 'idempotent' : 'never';
      this.entries.set(def.name, { def, listing, retry });
      hash.update(JSON.stringify(listing));
    }
    this.revision = hash.digest('hex').slice(0, 16);
  }

  /** The served tool called `name`, or undefined. */
  get(name: string): CatalogEntry | undefined {
    return this.entries.get(name);
  }

  /** Every served tool. */
  all(): CatalogEntry[] {
    return [...this.entries.values()];
  }

  /**
   * Names of the served tools `principal` may call (sorted), cached per tool set: what the daemon
   * receives as `CallContext.allowed_tools` (reserved names that are not served yet are left out).
   */
  callableBy(principal: Principal): string[] {
    const key = principal.allowedTools.join(',');
    let names = this.callable.get(key);
    if (names === undefined) {
      names = principal.allowedTools.filter((n) => this.entries.has(n));
      this.callable.set(key, names);
    }
    return names;
  }

  /** The `tools/list` entries `principal` may see (catalogue order), cached per tool set. */
  listFor(principal: Principal): readonly ToolListing[] {
    const key = principal.allowedTools.join(',');
    let list = this.lists.get(key);
    if (list === undefined) {
      list = [...this.entries.values()].filter((e) => principal.allowed.has(e.def.name)).map((e) => e.listing);
      this.lists.set(key, list);
    }
    return list;
  }
}
