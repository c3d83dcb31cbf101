import { posix } from 'node:path';
import { HoldfastError } from '@holdfast/shared/errors';
import type { ResultAction } from '@holdfast/shared/tools';
import { action } from '../envelope.js';
import type { FileWorkspace } from '../file-access.js';

/** What to do after a failed file read (issue 4: every refusal says what to do next). */
export function readFailureActions(ws: FileWorkspace, path: string, err: unknown): ResultAction[] {
  if (!(err instanceof HoldfastError)) return [];
  const rs = ws.session.id;
  switch (err.code) {
    case 'PATH_NOT_FOUND': {
      const dir = posix.dirname(path);
      return [action('read', { remote_session_id: rs, view: 'list', mode: 'entries', path: dir === '.' ? '' : dir }, 'list the folder to find the right name')];
    }
    case 'FILE_TOO_LARGE':
      return [action('read', { remote_session_id: rs, path, mode: 'window' }, `read it in windows of ${ws.policy.readWindowBytes} bytes`), action('read', { remote_session_id: rs, path, offset: -100 }, 'read its last 100 lines')];
    case 'UNSUPPORTED_FILE_TYPE':
      return err.details?.kind === 'directory' ? [action('read', { remote_session_id: rs, view: 'list', mode: 'entries', path }, 'list the directory')] : [];
    default:
      return [];
  }
}
