import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import { WorkLimits } from '@holdfast/shared/constants';
import { ControlEvents, type EventsBatch, type StreamEvent } from '@holdfast/shared/control';
import { DaemonClient } from '../../daemon-client.js';
import { colourMode, palette } from '../observe/palette.js';
import { formatEvent } from '../observe/text-format.js';
import { wholeNumber } from '../usage-error.js';

/** How long `observe` keeps trying to reach a daemon that went away (a restart takes seconds), ms. */
const RECONNECT_GIVE_UP_MS = 120_000;

interface ObserveOptions {
  history: number;
  format: 'text' | 'json';
  detail?: boolean;
  diff: 'summary' | 'preview' | 'full';
  tool?: string;
  status?: string;
  operation?: string;
  path?: string;
}

function oneOf<T extends string>(flag: string, values: readonly T[]) {
  return (v: string): T => {
    if (!(values as readonly string[]).includes(v)) throw new InvalidArgumentError(`${flag} is one of ${values.join(', ')}, got "${v}"`);
    return v as T;
  };
}

/**
 * `holdfast observe <workspace>` (issue 11): a read-only live view of a workspace's event log over
 * the control socket (`events.follow`; no HTTP server, no tool runs). Replays the last `--history`
 * stored events, then follows new ones as they are stored. When the daemon restarts, it
 * reconnects and resumes after the last sequence it saw: no event is lost or shown twice. Text
 * (docs/observe.md) or `--format json`, one complete event per line. Ctrl-C stops watching.
 */
export function registerObserve(program: Command): void {
  program
    .command('observe <workspace>')
    .description('watch what agents do in a workspace, live (read-only); Ctrl-C stops')
    .option('--history <n>', `stored events to replay first (1-${WorkLimits.OBSERVE_HISTORY_MAX})`, (v) => {
      const n = wholeNumber('--history', 1)(v);
      if (n > WorkLimits.OBSERVE_HISTORY_MAX) throw new InvalidArgumentError(`--history is at most ${WorkLimits.OBSERVE_HISTORY_MAX}, got ${n}`);
      return n;
    }, WorkLimits.OBSERVE_HISTORY_DEFAULT)
    .option('--format <format>', 'text | json (one event per line)', oneOf('--format', ['text', 'json'] as const), 'text')
    .option('--detail', 'more facts per call and longer command output')
    .option('--diff <mode>', 'edits: summary | preview | full', oneOf('--diff', ['summary', 'preview', 'full'] as const), 'summary')
    .option('--tool <name>', 'only calls of this tool')
    .option('--status <status>', 'only events with this status (succeeded, failed, accepted, …)')
    .option('--operation <op>', "only this action or view (run, advance, search, …) or lifecycle step (created, closed, …)")
    .option('--path <path>', 'only calls that named this workspace path (a folder covers what is under it; globs allowed)')
    .action(async (workspace: string, o: ObserveOptions) => {
      await observe(workspace, o);
    });
}

async function observe(workspace: string, o: ObserveOptions): Promise<void> {
  const stream = randomUUID();
  const pal = palette(o.format === 'json' ? 'none' : colourMode(process.stdout.isTTY, process.env));
  let cursor: number | null = null;
  let lastShown = 0;
  const write = (ev: StreamEvent): void => {
    if (ev.sequence <= lastShown) {
      // Never shown twice, whatever arrives; said on stderr because it would be a bug worth reporting.
      process.stderr.write(`[observe: dropped a repeat of event #${ev.sequence}]\n`);
      return;
    }
    lastShown = ev.sequence;
    const out = o.format === 'json' ? `${JSON.stringify(ev)}\n` : `${formatEvent(ev, pal, { detail: o.detail === true }).join('\n')}\n`;
    process.stdout.write(out);
  };
  const client = new DaemonClient({
    role: 'cli',
    autoStart: false,
    giveUpMs: RECONNECT_GIVE_UP_MS,
    onEvent: (ev, d) => {
      if (ev !== ControlEvents.events) return;
      const batch = d as EventsBatch;
      if (batch.stream !== stream) return;
      for (const e of batch.events) write(e);
      cursor = Math.max(cursor ?? 0, batch.cursor);
    },
  });
  let stopping = false;
  const stop = (): void => {
    stopping = true;
    client.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') stop(); // the reader went away (| head)
  });
  try {
    await followLoop(client, stream, workspace, o, () => cursor, (c) => (cursor = c), () => stopping);
  } finally {
    client.close();
  }
}

/** Follows until stopped: (re)subscribes after `cursor`, then waits for the connection to close. */
async function followLoop(
  client: DaemonClient,
  stream: string,
  workspace: string,
  o: ObserveOptions,
  cursorOf: () => number | null,
  setCursor: (c: number) => void,
  stopping: () => boolean,
): Promise<void> {
  for (;;) {
    const cursor = cursorOf();
    const r = await client.call('events.follow', {
      stream,
      workspace,
      ...(cursor !== null ? { after_seq: cursor } : { history: o.history }),
      detail: o.detail === true,
      diff: o.diff,
      ...(o.tool !== undefined ? { tool: o.tool } : {}),
      ...(o.status !== undefined ? { status: o.status } : {}),
      ...(o.operation !== undefined ? { operation: o.operation } : {}),
      ...(o.path !== undefined ? { path: o.path } : {}),
    });
    setCursor(Math.max(cursorOf() ?? 0, r.after_seq));
    const conn = client.connection;
    if (conn === null) continue;
    await new Promise<void>((resolve) => conn.once('close', () => resolve()));
    if (stopping()) return;
    if (o.format === 'text') process.stderr.write('[holdfastd went away; reconnecting and resuming where the stream stopped]\n');
  }
}
