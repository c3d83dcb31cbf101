import { CodeMapLimits } from '@holdfast/shared/constants';
import { Language, Parser, Query, type Node, type Tree } from 'web-tree-sitter';
import { languageSpec } from './languages.js';
import type { CodeSymbol, LanguageId, NameHit } from './types.js';

/** A definition with where its name sits (to tell definitions from uses). */
export interface TaggedSymbol extends CodeSymbol {
  /** String index of the name node. */
  nameIndex: number;
}

/** A symbol without the tagger's bookkeeping. */
export function plainSymbol(s: TaggedSymbol): CodeSymbol {
  const { nameIndex: _ignored, ...rest } = s;
  return rest;
}

/** What one file contributes to the map: its definitions and the names it references. */
export interface FileTags {
  defs: TaggedSymbol[];
  /** Referenced names (`@reference.*` captures) with their counts. */
  refs: [string, number][];
}

interface Loaded {
  parser: Parser;
  query: Query;
}

/** `line` trimmed and capped at CodeMapLimits.LINE_MAX_CHARS characters. */
export function clip(line: string): string {
  const t = line.trim();
  return t.length > CodeMapLimits.LINE_MAX_CHARS ? `${t.slice(0, CodeMapLimits.LINE_MAX_CHARS - 1)}…` : t;
}

/**
 * Parses source files with web-tree-sitter and runs the grammars' tags queries (issue 17). Lives in
 * the code-map worker: parsing never runs on the daemon's event loop. Grammars load on first use.
 */
export class Tagger {
  private init: Promise<void> | null = null;
  private readonly langs = new Map<LanguageId, Promise<Loaded>>();

  private load(id: LanguageId): Promise<Loaded> {
    let l = this.langs.get(id);
    if (!l) {
      l = (async () => {
        this.init ??= Parser.init();
        await this.init;
        const spec = languageSpec(id);
        const language = await Language.load(spec.wasm);
        const parser = new Parser();
        parser.setLanguage(language);
        return { parser, query: new Query(language, spec.tags) };
      })();
      l.catch(() => this.langs.delete(id));
      this.langs.set(id, l);
    }
    return l;
  }

  private async parse<T>(id: LanguageId, text: string, fn: (tree: Tree, query: Query) => T): Promise<T> {
    const { parser, query } = await this.load(id);
    const tree = parser.parse(text);
    if (!tree) throw new Error('the parser returned no tree');
    try {
      return fn(tree, query);
    } finally {
      tree.delete();
    }
  }

  /** Definitions (in line order, with containers) and referenced names of one file. */
  tags(id: LanguageId, text: string): Promise<FileTags> {
    return this.parse(id, text, (tree, query) => collectTags(tree, query, text.split('\n')));
  }

  /**
   * Definitions of `name` and every other identifier node spelled `name` (uses), name-based: a
   * textual occurrence counts when the smallest syntax node there is an identifier of that text
   * (so comments and strings do not).
   */
  occurrences(id: LanguageId, text: string, path: string, name: string): Promise<{ definitions: NameHit[]; uses: NameHit[] }> {
    return this.parse(id, text, (tree, query) => {
      const lines = text.split('\n');
      const { defs } = collectTags(tree, query, lines);
      const mine = defs.filter((d) => d.name === name);
      const defAt = new Set(mine.map((d) => d.nameIndex));
      const uses: NameHit[] = [];
      for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + name.length)) {
        if (defAt.has(i)) continue;
        const node = tree.rootNode.descendantForIndex(i, i + name.length);
        if (!node || node.startIndex !== i || node.text !== name || !/identifier/.test(node.type)) continue;
        const line = node.startPosition.row;
        uses.push({ path, line: line + 1, text: clip(lines[line] ?? ''), kind: node.type });
      }
      return { definitions: mine.map((d) => ({ path, line: d.line, text: d.signature, kind: d.kind })), uses };
    });
  }
}

function collectTags(tree: Tree, query: Query, lines: string[]): FileTags {
  const seen = new Set<string>();
  const found: { sym: TaggedSymbol; start: number; end: number }[] = [];
  const refs = new Map<string, number>();
  for (const m of query.matches(tree.rootNode)) {
    let nameNode: Node | null = null;
    let def: { node: Node; kind: string } | null = null;
    let isRef = false;
    for (const c of m.captures) {
      if (c.name === 'name') nameNode = c.node;
      else if (c.name.startsWith('definition.')) def = { node: c.node, kind: c.name.slice('definition.'.length) };
      else if (c.name.startsWith('reference.')) isRef = true;
    }
    if (!nameNode) continue;
    if (isRef && !def) {
      refs.set(nameNode.text, (refs.get(nameNode.text) ?? 0) + 1);
      continue;
    }
    if (!def) continue;
    const key = `${def.node.startIndex}:${def.node.endIndex}:${nameNode.startIndex}`;
    if (seen.has(key)) continue; // the same definition matched by two patterns: the first wins
    seen.add(key);
    const row = def.node.startPosition.row;
    found.push({
      sym: { kind: def.kind, name: nameNode.text, line: row + 1, end_line: def.node.endPosition.row + 1, signature: clip(lines[row] ?? ''), container: null, nameIndex: nameNode.startIndex },
      start: def.node.startIndex,
      end: def.node.endIndex,
    });
  }
  // Outer definitions first at the same start; the innermost enclosing definition is the container.
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const open: typeof found = [];
  for (const f of found) {
    while (open.length > 0 && open[open.length - 1]!.end <= f.start) open.pop();
    const parent = open[open.length - 1];
    if (parent && parent.end >= f.end) f.sym.container = parent.sym.name;
    open.push(f);
  }
  return { defs: found.map((f) => f.sym), refs: [...refs] };
}
