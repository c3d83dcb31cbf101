import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { LanguageId } from './types.js';

/**
 * Where each language's grammar and tags query come from (issue 17): the `.wasm` file and
 * `queries/tags.scm` shipped in the official tree-sitter grammar packages (versions pinned in
 * daemon/package.json), loaded with `web-tree-sitter`. TypeScript's `tags.scm` only covers the
 * TypeScript-specific nodes, so it is joined with JavaScript's (the copy TypeScript's grammar was
 * built on); a few lines of our own add what an outline needs and the official queries leave out
 * (type aliases, enums, arrow-function class fields).
 */
export interface LanguageSpec {
  id: LanguageId;
  /** Absolute path of the grammar's `.wasm`. */
  wasm: string;
  /** The tags query text. */
  tags: string;
}

const EXTENSIONS: Record<string, LanguageId> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
};

/** Our additions to the TypeScript/TSX tags (documented in docs/code-map.md). */
const TS_EXTRA_TAGS = `
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(public_field_definition name: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
`;

/** The language of a path by its extension, or null. */
export function languageOf(path: string): LanguageId | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return null;
  return EXTENSIONS[path.slice(dot + 1).toLowerCase()] ?? null;
}

/** Every supported extension (for docs and messages). */
export const SUPPORTED_EXTENSIONS = Object.keys(EXTENSIONS);

const require = createRequire(import.meta.url);

function packageDir(name: string, from?: string): string {
  const r = from ? createRequire(join(from, 'package.json')) : require;
  return dirname(r.resolve(`${name}/package.json`));
}

const read = (p: string): string => readFileSync(p, 'utf8');

/**
 * The grammar and tags of a language.
 * @throws Error when the grammar package is not installed (run `npm ci`).
 */
export function languageSpec(id: LanguageId): LanguageSpec {
  switch (id) {
    case 'typescript':
    case 'tsx': {
      const ts = packageDir('tree-sitter-typescript');
      const js = packageDir('tree-sitter-javascript', ts);
      const tags = `${read(join(js, 'queries', 'tags.scm'))}\n${read(join(ts, 'queries', 'tags.scm'))}\n${TS_EXTRA_TAGS}`;
      return { id, wasm: join(ts, id === 'tsx' ? 'tree-sitter-tsx.wasm' : 'tree-sitter-typescript.wasm'), tags };
    }
    default: {
      const dir = packageDir(`tree-sitter-${id}`);
      return { id, wasm: join(dir, `tree-sitter-${id}.wasm`), tags: read(join(dir, 'queries', 'tags.scm')) };
    }
  }
}
