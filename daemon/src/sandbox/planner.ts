import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SandboxConfig, SandboxSettings } from '@holdfast/shared/config';
import { HoldfastError } from '@holdfast/shared/errors';
import type { HomeLayout } from '@holdfast/shared/paths';
import type { SandboxSpec } from '@holdfast/shared/protocol';
import { PROJECT_CONFIG_NAME } from '../policy/project-config.js';
import { defaultLandlockHelper, SandboxProbe, type ProbeResult } from './probe.js';
import { sandboxRequirement, type SandboxRequirement } from './requirement.js';
import { isInside, type SessionSandbox } from './session-sandbox.js';

/** A planned confinement: what the guardian applies and what the session row records. */
export interface SandboxPlan {
  spec: SandboxSpec;
  session: SessionSandbox;
}

/** One line per mechanism for `holdfast doctor`. */
export interface SandboxReport {
  mode: SandboxConfig['mode'];
  network: SandboxConfig['network'];
  bwrap: ProbeResult;
  landlock: ProbeResult;
  /** What `auto` picks on this host (`none` = it would refuse). */
  auto: 'bwrap' | 'landlock' | 'none';
  /** Principals with their own keys in config.yaml. */
  principals: string[];
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Turns a principal's sandbox requirement into a plan for one new session (issue 17,
 * docs/sandbox.md): picks the mechanism (`auto`: bwrap when its probe succeeds, else Landlock, else
 * `SANDBOX_UNAVAILABLE` — never unconfined), and lays out the paths:
 *
 * - writable: the workspace root, then the configured extra paths (a missing one whose parent
 *   exists is created, so `~/.npm` works on a fresh account);
 * - hidden (bwrap): holdfast's home and run folder — tokens, config, database, sockets, other
 *   sessions' logs; the session's own rc files, and a workspace inside them, stay visible;
 * - read-only (bwrap): the project config `.holdfast.yaml`, which only the user edits.
 */
export class SandboxPlanner {
  constructor(
    private readonly layout: HomeLayout,
    private readonly config: () => SandboxConfig,
    readonly probe: SandboxProbe = new SandboxProbe(),
  ) {}

  /** The requirement for `principal` with the keys of its call context. */
  requirement(principal: string, call?: SandboxSettings): SandboxRequirement {
    return sandboxRequirement(this.config(), principal, call);
  }

  private landlockProgram(): string {
    return this.config().landlock_helper ?? defaultLandlockHelper();
  }

  /**
   * The mechanism for `req`, or null for `mode: off`.
   * @throws HoldfastError SANDBOX_UNAVAILABLE when the required mechanism (or, for `auto`, both)
   *   cannot run here, naming why and what to do.
   */
  async choose(req: SandboxRequirement): Promise<{ mode: 'bwrap' | 'landlock'; program: string; detail: string } | null> {
    if (req.mode === 'off') return null;
    const cfg = this.config();
    const tried: ProbeResult[] = [];
    if (req.mode === 'bwrap' || req.mode === 'auto') {
      const b = await this.probe.bwrap(cfg.bwrap_path, req.network);
      if (b.ok) return { mode: 'bwrap', program: b.program!, detail: b.detail };
      tried.push(b);
    }
    if (req.mode === 'landlock' || req.mode === 'auto') {
      const l = await this.probe.landlock(this.landlockProgram(), req.network);
      if (l.ok) return { mode: 'landlock', program: l.program!, detail: l.detail };
      tried.push(l);
    }
    throw new HoldfastError(
      'SANDBOX_UNAVAILABLE',
      `sessions of this principal must run sandboxed (mode ${req.mode}, network ${req.network}, from ${req.source}) but no sandbox works on this host: ${tried.map((t) => t.detail).join('; ')}. ` +
        'Install bubblewrap or allow user namespaces (docs/sandbox.md), or change security.sandbox in config.yaml; the session was not opened.',
      { retryable: false, details: { mode: req.mode, network: req.network, source: req.source, probes: tried.map((t) => t.detail) } },
    );
  }

  /**
   * The plan for a new session of `req` in `workspaceRoot` whose files live in `sessionDir`, or null
   * when it runs unconfined (`mode: off`).
   * @throws HoldfastError SANDBOX_UNAVAILABLE (see {@link choose}).
   */
  async plan(req: SandboxRequirement, workspaceRoot: string, sessionDir: string): Promise<SandboxPlan | null> {
    const chosen = await this.choose(req);
    if (chosen === null) return null;
    const writable = [workspaceRoot];
    for (const p of req.writable) {
      if (!existsSync(p) && existsSync(dirname(p))) {
        try {
          mkdirSync(p, { mode: 0o700 });
        } catch {
          // not creatable: the sandbox skips it
        }
      }
      const r = real(p);
      if (existsSync(r) && !writable.includes(r)) writable.push(r);
    }
    const hidden: string[] = [];
    for (const h of [this.layout.home, this.layout.runDir].map(real)) {
      if (!existsSync(h) || !statSync(h).isDirectory() || hidden.some((x) => isInside(x, h))) continue;
      hidden.push(h);
    }
    const spec: SandboxSpec = {
      mode: chosen.mode,
      network: req.network,
      program: chosen.program,
      writable,
      hidden,
      visible: [join(sessionDir, 'shell')],
      readOnly: [join(workspaceRoot, PROJECT_CONFIG_NAME)],
    };
    return { spec, session: { mode: chosen.mode, network: req.network, writable, hidden } };
  }

  /** Probes both mechanisms for `holdfast doctor` (fresh verdicts). */
  async report(): Promise<SandboxReport> {
    const cfg = this.config();
    this.probe.clear();
    const [bwrap, landlock] = await Promise.all([this.probe.bwrap(cfg.bwrap_path, cfg.network), this.probe.landlock(this.landlockProgram(), cfg.network)]);
    return {
      mode: cfg.mode,
      network: cfg.network,
      bwrap,
      landlock,
      auto: bwrap.ok ? 'bwrap' : landlock.ok ? 'landlock' : 'none',
      principals: Object.keys(cfg.principals),
    };
  }
}
