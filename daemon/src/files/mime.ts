import { posix } from 'node:path';

/** Image types returned as MCP image content (recognised by content, never by extension; issue 4). */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** Sniffs an image type from the first bytes of a file. */
export function sniffImage(head: Buffer): ImageMime | null {
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 6 && (head.toString('latin1', 0, 6) === 'GIF87a' || head.toString('latin1', 0, 6) === 'GIF89a')) return 'image/gif';
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

/** Other binary signatures worth naming. */
const BINARY_SIGNATURES: readonly [string, number[]][] = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/gzip', [0x1f, 0x8b]],
  ['application/x-elf', [0x7f, 0x45, 0x4c, 0x46]],
  ['application/wasm', [0x00, 0x61, 0x73, 0x6d]],
  ['application/x-sqlite3', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66]],
  ['image/bmp', [0x42, 0x4d]],
  ['image/x-icon', [0x00, 0x00, 0x01, 0x00]],
];

/**
 * Text types by extension. Source files are text whatever a MIME database says (`.ts` is
 * TypeScript, not an MPEG transport stream).
 */
const TEXT_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.ts': 'text/typescript', '.mts': 'text/typescript', '.cts': 'text/typescript', '.tsx': 'text/tsx',
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript', '.jsx': 'text/jsx',
  '.json': 'application/json', '.jsonc': 'application/json', '.jsonl': 'application/jsonl', '.map': 'application/json',
  '.md': 'text/markdown', '.markdown': 'text/markdown', '.mdx': 'text/mdx', '.rst': 'text/x-rst', '.txt': 'text/plain', '.log': 'text/plain',
  '.py': 'text/x-python', '.pyi': 'text/x-python', '.rb': 'text/x-ruby', '.php': 'text/x-php', '.pl': 'text/x-perl', '.lua': 'text/x-lua',
  '.rs': 'text/x-rust', '.go': 'text/x-go', '.java': 'text/x-java', '.kt': 'text/x-kotlin', '.kts': 'text/x-kotlin', '.scala': 'text/x-scala',
  '.swift': 'text/x-swift', '.dart': 'text/x-dart', '.cs': 'text/x-csharp', '.fs': 'text/x-fsharp', '.vb': 'text/x-vb',
  '.c': 'text/x-c', '.h': 'text/x-c', '.cc': 'text/x-c++', '.cpp': 'text/x-c++', '.cxx': 'text/x-c++', '.hpp': 'text/x-c++', '.hh': 'text/x-c++',
  '.m': 'text/x-objectivec', '.mm': 'text/x-objectivec', '.zig': 'text/x-zig', '.nim': 'text/x-nim', '.hs': 'text/x-haskell', '.ml': 'text/x-ocaml',
  '.ex': 'text/x-elixir', '.exs': 'text/x-elixir', '.erl': 'text/x-erlang', '.clj': 'text/x-clojure', '.r': 'text/x-r', '.jl': 'text/x-julia',
  '.sh': 'text/x-shellscript', '.bash': 'text/x-shellscript', '.zsh': 'text/x-shellscript', '.fish': 'text/x-shellscript', '.ps1': 'text/x-powershell',
  '.yaml': 'application/yaml', '.yml': 'application/yaml', '.toml': 'application/toml', '.ini': 'text/plain', '.cfg': 'text/plain', '.conf': 'text/plain',
  '.env': 'text/plain', '.properties': 'text/plain', '.gradle': 'text/x-groovy', '.groovy': 'text/x-groovy',
  '.html': 'text/html', '.htm': 'text/html', '.css': 'text/css', '.scss': 'text/x-scss', '.sass': 'text/x-sass', '.less': 'text/x-less',
  '.vue': 'text/x-vue', '.svelte': 'text/x-svelte', '.astro': 'text/x-astro',
  '.xml': 'application/xml', '.svg': 'image/svg+xml', '.csv': 'text/csv', '.tsv': 'text/tab-separated-values', '.sql': 'application/sql',
  '.graphql': 'application/graphql', '.gql': 'application/graphql', '.proto': 'text/x-protobuf', '.tf': 'text/x-terraform', '.nix': 'text/x-nix',
  '.dockerfile': 'text/x-dockerfile', '.mk': 'text/x-makefile', '.cmake': 'text/x-cmake', '.diff': 'text/x-diff', '.patch': 'text/x-diff',
};

/** Well-known file names without an extension. */
const TEXT_BY_NAME: Readonly<Record<string, string>> = {
  Dockerfile: 'text/x-dockerfile', Makefile: 'text/x-makefile', GNUmakefile: 'text/x-makefile', Rakefile: 'text/x-ruby', Gemfile: 'text/x-ruby',
  Jenkinsfile: 'text/x-groovy', Procfile: 'text/plain', LICENSE: 'text/plain', README: 'text/plain', '.gitignore': 'text/plain',
  '.gitattributes': 'text/plain', '.editorconfig': 'text/plain', '.npmrc': 'text/plain', '.holdfast.yaml': 'application/yaml',
};

/**
 * The MIME type of a file: images and known binary formats by content; text by name/extension
 * (default `text/plain`); other binary content `application/octet-stream`.
 */
export function mimeTypeOf(path: string, head: Buffer, isText: boolean): string {
  const image = sniffImage(head);
  if (image) return image;
  if (!isText) {
    for (const [mime, sig] of BINARY_SIGNATURES) {
      if (head.length >= sig.length && sig.every((b, i) => head[i] === b)) return mime;
    }
    return 'application/octet-stream';
  }
  const name = posix.basename(path);
  return TEXT_BY_NAME[name] ?? TEXT_BY_EXTENSION[posix.extname(name).toLowerCase()] ?? 'text/plain';
}
