/**
 * The code map's contract (issue 17, docs/code-map.md): what the tags worker answers for
 * `read(view="outline")` and `read(view="references")`. Paths are workspace-relative, lines 1-based.
 */

/** Languages the code map parses (tree-sitter grammars from their official npm packages). */
export type LanguageId = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust';

/** One definition from a grammar's `tags.scm` (`@definition.<kind>`). */
export interface CodeSymbol {
  /** `function`, `method`, `class`, `interface`, `module`, `type`, `enum`, `constant`, `macro`, … */
  kind: string;
  name: string;
  /** First and last line of the definition, inclusive. */
  line: number;
  end_line: number;
  /** The definition's first source line, trimmed (≤ CodeMapLimits.LINE_MAX_CHARS). */
  signature: string;
  /** Name of the innermost definition that contains it (a method's class), or null. */
  container: string | null;
}

/** Why a file was not parsed. */
export type SkipReason = 'too_large' | 'binary' | 'unsupported' | 'unreadable';

/** Outline of one file. */
export interface OutlineResult {
  path: string;
  language: LanguageId | null;
  /** Present when the file was not parsed. */
  skipped?: SkipReason;
  size: number;
  total_lines: number;
  symbols: CodeSymbol[];
  /** Definitions found (symbols holds at most CodeMapLimits.OUTLINE_SYMBOLS_MAX of them). */
  total_symbols: number;
  /** sha256 (hex, 16) over the file's path, size and mtime: paging is bound to it. */
  snapshot: string;
}

/** One file of the ranked map, its symbols already chosen, in priority order (the most referenced first). */
export interface RankedFile {
  path: string;
  language: LanguageId;
  /** PageRank over "references a name defined in" edges, normalised so the files sum to 1. */
  rank: number;
  symbols: CodeSymbol[];
  total_symbols: number;
}

/** Files left out of a walk, by reason (counts, plus a few example paths for large files). */
export interface SkipCounts {
  too_large: number;
  too_large_examples: string[];
  binary: number;
  unsupported: number;
  unreadable: number;
}

/** The ranked workspace map (every page is cut from it). */
export interface MapResult {
  files: RankedFile[];
  /** Files walked (every kind), and whether the walk ended before CodeMapLimits.SCAN_FILES_MAX. */
  scanned: number;
  complete: boolean;
  skipped: SkipCounts;
  /** sha256 (hex, 16) over path, size and mtime of every file considered: paging is bound to it. */
  snapshot: string;
}

/** A definition or use of a name. */
export interface NameHit {
  path: string;
  line: number;
  /** The line's text, trimmed (≤ CodeMapLimits.LINE_MAX_CHARS). */
  text: string;
  /** Definitions: their kind; uses: the syntax node type (`identifier`, `property_identifier`, …). */
  kind: string;
}

/** References of one name across the workspace (name-based, not type-resolved). */
export interface ReferencesResult {
  name: string;
  definitions: NameHit[];
  /** Every use, in path then line order (the tool pages through them). */
  uses: NameHit[];
  /** Supported files that contain the name and were parsed. */
  files_parsed: number;
  scanned: number;
  complete: boolean;
  skipped: SkipCounts;
  snapshot: string;
}

/** Where and what to walk (the search walker's rules: .gitignore, deny, globs). */
export interface WalkScope {
  root: string;
  /** Folder ('' = the workspace). */
  scope: string;
  include: string[];
  exclude: string[];
  /** Deny rule sources (file policy). */
  deny: string[];
}
