/**
 * The contract both search engines implement (issue 4 `read(view="search")` and `view="list"`
 * mode `files`): ripgrep when it is on PATH, else the built-in engine in a worker thread. A test
 * runs both on the same tree and compares the results.
 */

/** What to search. Paths are workspace-relative, `/`-separated. */
export interface SearchSpec {
  /** Workspace root (canonical, absolute). */
  root: string;
  /** Folder or file to search in ('' = the whole workspace). */
  scope: string;
  query: string;
  regex: boolean;
  caseSensitive: boolean;
  /** Globs relative to the scope (ripgrep `-g` semantics). */
  include: string[];
  exclude: string[];
  contextLines: number;
  /** Deny rules (regex sources over workspace-relative paths); denied files never appear. */
  deny: string[];
  /** Matching lines wanted: the engine may stop early once it has this many in path order. */
  want: number;
}

/** A line around a match. */
export interface ContextLine {
  line: number;
  text: string;
}

/** One matching line (1-based), its text and the lines around it. */
export interface SearchMatch {
  path: string;
  line: number;
  text: string;
  before: ContextLine[];
  after: ContextLine[];
}

/** Matches in path order (then line order). */
export interface SearchOutcome {
  matches: SearchMatch[];
  /** True when `matches` is every match; false when the engine stopped at `want`. */
  complete: boolean;
  engine: 'ripgrep' | 'builtin';
}

/** What to list (mode `files`). */
export interface FilesSpec {
  root: string;
  scope: string;
  include: string[];
  exclude: string[];
  deny: string[];
  /** Case-insensitive substring of the workspace-relative path. */
  query: string | null;
}

/** Files in path order. */
export interface FilesOutcome {
  files: string[];
  complete: boolean;
  engine: 'ripgrep' | 'builtin';
}
