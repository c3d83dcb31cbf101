import { HoldfastError } from '@holdfast/shared/errors';
import { ControlMethods, isControlMethod, type ControlMethod, type ControlParsedParams, type ControlResult } from '@holdfast/shared/control';
import type { RequestContext, RequestHandler } from '@holdfast/shared/wire';

/** One handler per control method, typed from the zod catalogue. */
export type ControlHandlers = {
  [M in ControlMethod]: (params: ControlParsedParams<M>, ctx: RequestContext) => Promise<ControlResult<M>> | ControlResult<M>;
};

/**
 * The daemon's trust boundary for control requests (DESIGN §3): the method must exist and its
 * params must parse with the method's zod schema (`BAD_REQUEST` naming the field otherwise);
 * `gate` may refuse (e.g. `DAEMON_DRAINING`) before the handler runs.
 */
export function createRouter(handlers: ControlHandlers, gate: (m: ControlMethod) => void): RequestHandler {
  return async (method, params, ctx) => {
    if (!isControlMethod(method)) throw new HoldfastError('UNKNOWN_METHOD', `unknown control method ${method}`);
    gate(method);
    const schema = ControlMethods[method].params;
    const parsed = schema.safeParse(params ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new HoldfastError('BAD_REQUEST', `${method}: ${issue.path.join('.') || 'params'}: ${issue.message}`);
    }
    const h = handlers[method] as (p: unknown, c: RequestContext) => unknown;
    return h(parsed.data, ctx);
  };
}
