import type { Command } from 'commander';
import { HoldfastError } from '@holdfast/shared/errors';
import { withClient } from '../client.js';
import { UsageError } from '../usage-error.js';

/**
 * `holdfast desktop view --view <view_id> [--cell-aspect N]` (issue 16 §5): watches the desktop a
 * person connected for a view, in their own terminal. Without a terminal (stdin and stdout must be
 * TTYs) it exits with `VIEW_REQUIRES_TERMINAL`. The viewer (and `ws`) is imported only when the
 * command runs: every adapter, `serve` included, registers this command (issue 10, idle RSS).
 */
export function registerDesktopView(desktop: Command): void {
  desktop
    .command('view')
    .description('watch the desktop of a view in this terminal (p pause, r resume, d disconnect, q leave)')
    .requiredOption('--view <view_id>', 'the view (from desktop_open or holdfast desktop pair)')
    .option('--cell-aspect <ratio>', 'width/height of a terminal cell, 0.2–2 (default 0.5)')
    .action(async (o: { view: string; cellAspect?: string }) => {
      const { parseCellAspect, TerminalViewer } = await import('../desktop-view/terminal-viewer.js');
      const cellAspect = parseCellAspect(o.cellAspect);
      if (cellAspect === null) throw new UsageError('--cell-aspect must be a number from 0.2 to 2');
      if (!process.stdin.isTTY || !process.stdout.isTTY) {
        throw new HoldfastError('VIEW_REQUIRES_TERMINAL', 'holdfast desktop view draws in a terminal: run it in one (stdin and stdout must be a TTY); or open the panel with `holdfast desktop pair <view_id>`', { retryable: false });
      }
      await withClient(async (c) => {
        const ticket = await c.call('desktop.view_ticket', { view_id: o.view }, { retry: 'never' });
        process.exitCode = await new TerminalViewer(c, ticket, { cellAspect, input: process.stdin, output: process.stdout }).run();
      });
    });
}
