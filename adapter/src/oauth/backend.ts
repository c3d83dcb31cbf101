import type { ControlMethod, ControlParams, ControlResult } from '@holdfast/shared/control';

/**
 * What the adapter's OAuth code needs from the daemon: control calls (the `DaemonClient` fits).
 * The adapter keeps no OAuth state of its own (issue 14): every read and write goes here.
 */
export interface OAuthBackend {
  call<M extends ControlMethod>(method: M, params: ControlParams<M>): Promise<ControlResult<M>>;
}
