/**
 * Everything a guardian may import from `shared` besides the wire (DESIGN §1): the envelope,
 * the guardian method catalogue, its on-disk records, error codes, constants and process
 * identity. Nothing here pulls zod or other daemon-side code into the guardian bundle.
 */
export * from './envelope.js';
export * from './guardian.js';
export * from './desktop.js';
export * from './manifest.js';
export * from './output-log.js';
export * from '../errors.js';
export * from '../constants.js';
export * from '../proc.js';
export { ID_PREFIXES, isId, newId, type IdKind } from '../ids.js';
