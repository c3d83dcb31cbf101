import picomatch from 'picomatch';

/**
 * Include/exclude globs with ripgrep's `-g` semantics (gitignore-style), matched against paths
 * relative to the search scope: a glob without `/` matches a name at any depth (`*.ts`), one with
 * `/` is anchored at the scope (`src/**`); a leading `/` only anchors. Excludes also hide
 * everything under an excluded folder; includes filter files only.
 */
export class GlobFilter {
  private readonly include: ((p: string) => boolean) | null;
  private readonly exclude: ((p: string) => boolean) | null;

  constructor(include: readonly string[], exclude: readonly string[]) {
    this.include = include.length > 0 ? GlobFilter.compile(include) : null;
    this.exclude = exclude.length > 0 ? GlobFilter.compile(exclude) : null;
  }

  private static compile(globs: readonly string[]): (p: string) => boolean {
    const anchored: string[] = [];
    const named: string[] = [];
    for (const raw of globs) {
      const g = raw.replace(/\/+$/, '');
      if (g === '') continue;
      if (g.startsWith('/')) anchored.push(g.slice(1));
      else if (g.includes('/')) anchored.push(g);
      else named.push(g);
    }
    const a = anchored.length > 0 ? picomatch(anchored, { dot: true }) : null;
    const n = named.length > 0 ? picomatch(named, { dot: true, basename: true }) : null;
    return (p) => (a !== null && a(p)) || (n !== null && n(p));
  }

  /** True when a folder (relative to the scope) is excluded: nothing under it is searched. */
  excludesDir(rel: string): boolean {
    return this.exclude !== null && this.exclude(rel);
  }

  /** True when a file (relative to the scope) passes; `checkParents` also tests its folders. */
  allowsFile(rel: string, checkParents: boolean): boolean {
    if (this.exclude !== null) {
      if (this.exclude(rel)) return false;
      if (checkParents) {
        for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) if (this.exclude(rel.slice(0, i))) return false;
      }
    }
    return this.include === null || this.include(rel);
  }

  /** Whether any glob was given. */
  get active(): boolean {
    return this.include !== null || this.exclude !== null;
  }
}
