import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// The package is CommonJS (`module.exports = serialize`) while its typings say `export default`.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/**
 * sha256 (hex) of a JSON value in RFC 8785 canonical form (sorted keys, one number format), so
 * the same arguments, entry or tool definition always give the same digest whatever the key order
 * (issue 13: confirmations are bound to an argument digest, approvals to an entry hash, describes
 * to a schema revision).
 */
export function jsonSha256(value: unknown): string {
  return createHash('sha256').update(canonicalize(value) ?? 'null').digest('hex');
}
