import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { jsonSha256 } from './digest.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

// ajv (CommonJS) is loaded on first use: a daemon whose sessions never use an extension does not
// carry its ~10 MB.
const require = createRequire(import.meta.url);

/** Compiled validators kept (by schema digest). */
const CACHE_MAX = 256;

/**
 * Validates extension arguments against a JSON Schema taken from outside holdfast — an upstream
 * tool's `inputSchema`, a skill's `arguments` (issue 13). The dialect follows the schema's
 * `$schema` (draft-07 and older, 2019-09, else 2020-12 — the MCP default since 2025-11-25); ajv
 * runs non-strict (unknown keywords are ignored, as MCP clients do) with the standard formats.
 */
export class SchemaValidator {
  private readonly engines = new Map<string, AnyAjv>();
  private readonly cache = new Map<string, ValidateFunction>();

  /**
   * Checks `value` against `schema`.
   * @returns null when valid, else one line naming the first problems (`/path: message`).
   * @throws Error when the schema itself does not compile (the caller reports it).
   */
  check(schema: Record<string, unknown>, value: unknown): string | null {
    const validate = this.compile(schema);
    if (validate(value)) return null;
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '(arguments)'}: ${e.message ?? 'invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`)
      .join('; ');
  }

  private compile(schema: Record<string, unknown>): ValidateFunction {
    const key = jsonSha256(schema);
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.engine(typeof schema.$schema === 'string' ? schema.$schema : '').compile(schema);
      if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, fn);
    }
    return fn;
  }

  private engine(dialect: string): AnyAjv {
    const which = /draft-0[4-7]/.test(dialect) ? 'draft-07' : /2019-09/.test(dialect) ? '2019-09' : '2020-12';
    let ajv = this.engines.get(which);
    if (!ajv) {
      const opts = { strict: false, allErrors: false, validateSchema: false };
      const Engine = (which === 'draft-07' ? require('ajv').Ajv : which === '2019-09' ? require('ajv/dist/2019.js').Ajv2019 : require('ajv/dist/2020.js').Ajv2020) as new (o: typeof opts) => AnyAjv;
      ajv = new Engine(opts);
      (require('ajv-formats') as { default: (a: AnyAjv) => void }).default(ajv);
      this.engines.set(which, ajv);
    }
    return ajv;
  }
}
