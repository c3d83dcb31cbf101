/** Minimal typings of `picomatch` 4 (no bundled types): only what the glob filter uses. */
declare module 'picomatch' {
  export interface PicomatchOptions {
    dot?: boolean;
    basename?: boolean;
    nocase?: boolean;
  }
  type Matcher = (path: string) => boolean;
  function picomatch(glob: string | string[], options?: PicomatchOptions): Matcher;
  export default picomatch;
}
