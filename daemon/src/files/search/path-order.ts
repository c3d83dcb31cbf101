const SURROGATE = /[\uD800-\uDFFF]/;

function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 order equals code-point (= UTF-8 byte) order unless surrogates are involved.
  if (SURROGATE.test(a) || SURROGATE.test(b)) {
    const x = [...a];
    const y = [...b];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
      if (d !== 0) return d;
    }
    return x.length - y.length;
  }
  return a < b ? -1 : 1;
}

/**
 * Orders workspace-relative paths component by component in byte order — the order of
 * `rg --sort path` (each folder's entries sorted by name), so both search engines page alike.
 */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = compareNames(x[i]!, y[i]!);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
