import { createHash } from 'node:crypto';
import { DESKTOP_APP_URI, TOOLS, toolListing, type ToolDef, type ToolListing } from '@holdfast/shared/tools';
import type { RetryPolicy } from '../daemon-client.js';
import { markImmutable } from './json-size.js';
import type { Principal } from './principals.js';

/** One served tool: its contract, its rendered `tools/list` entry and how a call may be retried. */
export interface CatalogEntry {
  def: ToolDef;
  listing: ToolListing;
  /**
   * Whether a call with these (parsed) arguments is re-sent after a daemon reconnect (DESIGN §4.5):
   * see {@link retryPolicyFor}.
   */
  retryFor: (args: Record<string, unknown>) => RetryPolicy;
}

/** Per-argument retry rules of tools that are neither read-only nor idempotent as a whole. */
const ARGUMENT_RETRY: Readonly<Record<string, (args: Record<string, unknown>) => RetryPolicy>> = {
  // attach and status only wait and look; a run with an idempotency_key is deduplicated by the
  // daemon (the same key returns the task the first attempt started). Other runs, stop and stdin
  // are never repeated behind the client's back.
  execute: (args) => {
    const action = args.action ?? 'run';
    if (action === 'attach' || action === 'status') return 'idempotent';
    if (action === 'run' && typeof args.idempotency_key === 'string') return 'idempotent';
    return 'never';
  },
  // list and describe only look (issue 13); a call runs an upstream tool or a skill: never repeated.
  skill_tool: (args) => (args.action === 'list' || args.action === 'describe' ? 'idempotent' : 'never'),
  mcp_tool: (args) => (args.action === 'list' || args.action === 'describe' ? 'idempotent' : 'never'),
  // Reading a plan or an artifact only looks; changes are never repeated behind the client's back.
  plan: (args) => (args.action === 'read' ? 'idempotent' : 'never'),
  artifact: (args) => (args.action === 'read' || args.action === 'list' ? 'idempotent' : 'never'),
  // A batch with a caller-chosen operation_id is deduplicated by the daemon (issue 12); looking,
  // waiting and cancelling are safe to repeat; confirming runs a step and is never repeated.
  operation_batch: (args) => (typeof args.operation_id === 'string' ? 'idempotent' : 'never'),
  operation_manage: (args) => (args.action === 'confirm' ? 'never' : 'idempotent'),
  // A desktop action with an operation_id is answered from the driver's ledger when repeated (issue 15).
  desktop_action: (args) => (typeof args.operation_id === 'string' ? 'idempotent' : 'never'),
};

/**
 * The retry policy of a tool's calls (DESIGN §4.5: adapters re-send idempotent calls after a
 * reconnect, e.g. across `holdfast restart-daemon`): `idempotent` for read-only or idempotent
 * tools (`workspace`, `read`, `observe`, `runtime_read`, `session`, …), by argument for
 * `execute` (`attach`, `status`, and `run` with an `idempotency_key`) and for `skill_tool` and
 * `mcp_tool` (`list`, `describe`), `never` otherwise.
 */
export function retryPolicyFor(def: ToolDef): (args: Record<string, unknown>) => RetryPolicy {
  if (def.annotations.readOnlyHint || def.annotations.idempotentHint) return () => 'idempotent';
  return ARGUMENT_RETRY[def.name] ?? (() => 'never');
}

/** Tools whose results the MCP Apps view `ui://holdfast/desktop.html` renders (issue 16 §6). */
const APP_RENDERED_TOOLS = new Set(['desktop_open']);

/**
 * The served tool catalogue (DESIGN §6.3, §6.4), rendered once at start-up: JSON Schemas are built
 * a single time and every `tools/list` answer reuses the same objects, filtered per principal
 * (one cached array per distinct tool set).
 *
 * Clients that render MCP Apps views (issue 16) get `desktop_open` with `_meta.ui.resourceUri`;
 * other clients the same listing without it.
 */
export class ToolCatalog {
  private readonly entries = new Map<string, CatalogEntry>();
  private readonly appListings = new Map<string, ToolListing>();
  private readonly lists = new Map<string, readonly ToolListing[]>();
  private readonly callable = new Map<string, string[]>();
  /** Hash of every rendered listing: changes whenever a schema, description or annotation does. */
  readonly revision: string;

  constructor(tools: readonly ToolDef[] = TOOLS) {
    const hash = createHash('sha256');
    for (const def of tools) {
      const listing = toolListing(def);
      this.entries.set(def.name, { def, listing, retryFor: retryPolicyFor(def) });
      if (APP_RENDERED_TOOLS.has(def.name)) this.appListings.set(def.name, { ...listing, _meta: { ...(listing._meta ?? {}), ui: { resourceUri: DESKTOP_APP_URI } } });
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

  /**
   * The `tools/list` entries `principal` may see (catalogue order), cached per tool set; `apps`:
   * the client renders MCP Apps views.
   */
  listFor(principal: Principal, apps = false): readonly ToolListing[] {
    const key = `${apps ? 'apps:' : ''}${principal.allowedTools.join(',')}`;
    let list = this.lists.get(key);
    if (list === undefined) {
      list = [...this.entries.values()]
        .filter((e) => principal.allowed.has(e.def.name))
        .map((e) => (apps ? (this.appListings.get(e.def.name) ?? e.listing) : e.listing));
      // Never changed after this point: the event store measures it once (issue 10).
      markImmutable(list);
      this.lists.set(key, list);
    }
    return list;
  }

}
