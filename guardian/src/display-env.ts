import { renameSync, writeFileSync } from 'node:fs';
import type { DisplayEnvEvent } from '@holdfast/shared/protocol';
import { log } from './log.js';

const VARS = ['DISPLAY', 'XAUTHORITY'] as const;

/**
 * Gives the session the private display (issue 15: "the session shell gets DISPLAY so xdg-open, a
 * browser or the app being built appears there"): background tasks get the variables in their
 * environment at once; the shell through `display.sh`, which its PROMPT_COMMAND reads as data —
 * `generation N`, `set NAME value`, `unset NAME` lines for these two names only, never sourced, so
 * a process that could write the file cannot make the shell run anything (shell-integration.ts) —
 * and when the shell sits idle at its prompt, `refreshPrompt` makes it draw a new prompt so the
 * very next command has them. When the display goes away the original
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
      if (v === undefined || /[\n\r\0]/.test(v)) {
        delete this.taskEnv[k];
        lines.push(`unset ${k}`);
      } else {
        this.taskEnv[k] = v;
        lines.push(`set ${k} ${v}`);
      }
    }
    const g = this.generation;
    const text = `# holdfast: the session's display; data read by the prompt hook, never sourced\ngeneration ${g}\n${lines.join('\n')}\n`;
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
