import { renameSync, writeFileSync } from 'node:fs';
import type { DisplayEnvEvent } from '@holdfast/shared/protocol';
import { log } from './log.js';
import { shQuote } from './rc-files.js';

const VARS = ['DISPLAY', 'XAUTHORITY'] as const;

/**
 * Gives the session the private display (issue 15: "the session shell gets DISPLAY so xdg-open, a
 * browser or the app being built appears there"): background tasks get the variables in their
 * environment at once; the shell through `display.sh`, which its PROMPT_COMMAND sources (see
 * shell-integration.ts) — and when the shell sits idle at its prompt, `refreshPrompt` makes it
 * draw a new prompt so the very next command has them. When the display goes away the original
 * values (or their absence) come back.
 */
export class DisplayEnv {
  private generation = 0;
  private readonly original: Partial<Record<(typeof VARS)[number], string>> = {};

  constructor(
    private readonly file: string,
    /** The environment object background tasks are started with (mutated in place). */
    private readonly taskEnv: Record<string, string>,
    private readonly refreshPrompt: () => void,
  ) {
    for (const k of VARS) if (taskEnv[k] !== undefined) this.original[k] = taskEnv[k];
  }

  /** Applies the driver's display event. */
  apply(env: DisplayEnvEvent): void {
    const target: Partial<Record<(typeof VARS)[number], string>> = env ?? this.original;
    this.generation += 1;
    const lines: string[] = [];
    for (const k of VARS) {
      const v = target[k];
      if (v === undefined) {
        delete this.taskEnv[k];
        lines.push(`  builtin unset ${k}`);
      } else {
        this.taskEnv[k] = v;
        lines.push(`  builtin export ${k}=${shQuote(v)}`);
      }
    }
    const g = this.generation;
    const text = `# holdfast: the session's display (generation ${g}); written by the guardian\nif [[ \${__hf_eg-} != ${g} ]]; then\n  __hf_eg=${g}\n${lines.join('\n')}\nfi\n`;
    try {
      writeFileSync(`${this.file}.tmp`, text, { mode: 0o600 });
      renameSync(`${this.file}.tmp`, this.file);
    } catch (err) {
      log('writing the display environment failed', err);
      return;
    }
    log(env ? `session display is ${env.DISPLAY}` : 'session display removed');
    this.refreshPrompt();
  }
}
