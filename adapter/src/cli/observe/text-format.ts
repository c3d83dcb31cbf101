import type { StreamEvent } from '@holdfast/shared/control';
import type { Palette } from './palette.js';

/** Options of the text layout. */
export interface TextOptions {
  /** More facts per call (sequence, session, principal, task and request ids, summary). */
  detail: boolean;
}

/** Longest purpose/activity line and target, characters (one compact line each). */
const LINE_MAX_CHARS = 200;

const ACTIVITY_ORDER = ['intent', 'hypothesis', 'evidence', 'conclusion', 'next', 'status'] as const;

/** Status marks of a call (lifecycle events, which have none, get `•`). */
const MARK: Record<string, string> = { succeeded: '✓', failed: '✗', accepted: '◷', waiting_confirmation: '?', interrupted: '!', completed_with_issues: '~' };

function oneLine(s: string, max = LINE_MAX_CHARS): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** `12 ms`, `1.3 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The verb of a call (issue 11: Read, Edited, Ran, Searched, Plan, Session, Progress, …) and its target. */
export function verbOf(ev: StreamEvent): { verb: string; target: string } {
  const d = ev.data;
  const action = str(d.action);
  const target = oneLine(str(d.target) ?? '');
  if (ev.kind === 'session.awaiting_input') return { verb: 'Waiting for input', target: oneLine(str(d.command) ?? '') };
  if (ev.kind !== 'tool.call') {
    const [scope, what] = ev.kind.split('.', 2) as [string, string | undefined];
    const subject = scope === 'session' ? (ev.remote_session_id ?? '') : scope === 'workspace' ? (ev.workspace ?? '') : '';
    const reason = str(d.reason) ? ` (${d.reason as string})` : '';
    return { verb: scope.charAt(0).toUpperCase() + scope.slice(1), target: `${what ?? ''}${subject ? ` ${subject}` : ''}${reason}`.trim() };
  }
  switch (ev.tool) {
    case 'read':
      return { verb: action === 'search' ? 'Searched' : action === 'list' ? 'Listed' : 'Read', target };
    case 'edit':
      return { verb: 'Edited', target };
    case 'move_out':
      return { verb: action === 'prepare' ? 'Prepared move of' : 'Moved out', target };
    case 'execute': {
      const verbs: Record<string, string> = { run: 'Ran', attach: 'Waited for', stop: 'Stopped', stdin: 'Typed into', status: 'Checked' };
      return { verb: verbs[action ?? 'run'] ?? 'Ran', target };
    }
    case 'plan':
      return { verb: 'Plan', target: `${action ?? ''}${target ? `: ${target}` : ''}` };
    case 'progress':
      return { verb: 'Progress', target: `${str(d.progress_status) ?? ''}${target ? `: ${target}` : ''}` };
    case 'artifact':
      return { verb: 'Artifact', target: `${action ?? ''}${target ? `: ${target}` : ''}` };
    case 'session':
      return { verb: 'Session', target: `${action ?? 'open'}${target ? ` ${target}` : ''}` };
    case 'observe':
      return { verb: 'Observed', target };
    default:
      return { verb: `Called ${ev.tool ?? '?'}`, target: `${action ?? ''}${target ? ` ${target}` : ''}`.trim() };
  }
}

/**
 * One event as text lines (issue 11 `holdfast observe --format text`): the activity and the
 * purpose of a call as single compact lines before it; then a status mark and a verb with its
 * target; facts indented two spaces (duration, exit code, result, time; more with `detail`);
 * command output indented four with line numbers, stderr marked `!` instead of `│`; an edit's
 * changes per file (and its diff lines when the stream asked for them).
 */
export function formatEvent(ev: StreamEvent, p: Palette, opts: TextOptions): string[] {
  const d = ev.data;
  const lines: string[] = [];
  const activity = d.activity as Record<string, unknown> | undefined;
  if (activity) {
    const changed = Array.isArray(activity.changed) ? (activity.changed as string[]) : [];
    const parts = ACTIVITY_ORDER.filter((k) => changed.includes(k) && str(activity[k])).map((k) => `${k}: ${activity[k] as string}`);
    if (parts.length > 0) lines.push(p.info(`» ${oneLine(parts.join(' · '))}`));
  }
  if (str(d.purpose)) lines.push(p.dim(`# ${oneLine(d.purpose as string)}`));

  const status = ev.status ?? '';
  const mark = MARK[status] ?? '•';
  const colour = status === 'succeeded' ? p.ok : status === 'failed' ? p.fail : status === '' ? p.info : p.warn;
  const { verb, target } = verbOf(ev);
  lines.push(`${colour(mark)} ${p.bold(verb)}${target ? ` ${target}` : ''}`);

  const facts: string[] = [];
  if (typeof d.duration_ms === 'number') facts.push(formatDuration(d.duration_ms));
  if (typeof d.exit_code === 'number') facts.push(d.exit_code === 0 ? 'exit 0' : p.fail(`exit ${d.exit_code}`));
  if (status === 'accepted' && ev.tool === 'execute') facts.push(p.warn('still running'));
  if (str(d.error)) facts.push(p.fail(`${d.error as string}: ${oneLine(str(d.error_message) ?? '')}`));
  if (typeof d.plan_revision === 'number') facts.push(`revision ${d.plan_revision}${str(d.task_state) ? `, task ${d.task_state as string}` : ''}`);
  if (str(d.plan_task_id) && ev.tool !== 'plan') facts.push(`for ${d.plan_task_id as string}`);
  if (str(d.artifact_id)) facts.push(d.artifact_id as string);
  if (ev.diff) for (const f of ev.diff.files) facts.push(`${f.path} ${p.added(`+${f.added}`)} ${p.removed(`−${f.removed}`)}`);
  facts.push(p.dim(ev.at.slice(11, 19)));
  if (opts.detail) {
    facts.push(p.dim(`#${ev.sequence}`));
    if (ev.remote_session_id) facts.push(p.dim(ev.remote_session_id));
    if (str(d.principal)) facts.push(p.dim(`by ${d.principal as string}`));
    if (str(d.execution_task_id)) facts.push(p.dim(d.execution_task_id as string));
  }
  lines.push(`  ${facts.join(' · ')}`);
  if (Array.isArray(d.result)) for (const r of d.result) if (typeof r === 'string') lines.push(`  ${p.ok('✓')} ${oneLine(r)}`);
  // The one-line result of calls whose facts above do not already say it.
  const quiet = ev.tool === 'execute' || ev.tool === 'edit' || ev.tool === 'progress';
  if (str(d.summary) && status !== 'failed' && (opts.detail || !quiet)) lines.push(`  ${p.dim(oneLine(d.summary as string))}`);

  if (ev.output) {
    for (const s of ev.output.streams) {
      const width = String(s.first_line + s.lines.length - 1).length;
      if (s.first_line > 1) lines.push(p.dim(`    ${'…'.padStart(width)}   ${s.first_line - 1} earlier line(s) of ${s.name}`));
      s.lines.forEach((text, i) => {
        const n = String(s.first_line + i).padStart(width);
        lines.push(s.name === 'stderr' ? `    ${p.dim(n)} ${p.fail('!')} ${text}` : `    ${p.dim(n)} ${p.dim('│')} ${text}`);
      });
    }
  }
  if (ev.diff?.lines) {
    for (const l of ev.diff.lines) lines.push(`    ${l.startsWith('+') && !l.startsWith('+++') ? p.added(l) : l.startsWith('-') && !l.startsWith('---') ? p.removed(l) : l.startsWith('@@') ? p.info(l) : l}`);
    if (ev.diff.truncated) lines.push(p.dim('    … diff truncated'));
  }
  return lines;
}
