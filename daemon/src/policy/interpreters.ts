import type { SimpleCommand } from './script-scan.js';
import type { ShellWord } from './shell-syntax.js';
import { descriptorPath, inputText, type CommandView } from './wrappers.js';

/**
 * Code given to an interpreter on the command line or through its input (docs/command-policy.md
 * "Built-in confirmations", review round 6): `python3 -c`, `node -e|-p`, `perl -e|-E`, `ruby -e`,
 * `php -r`, an awk program (and, with no word list, any code given to `lua -e`, `Rscript -e`,
 * `julia -e`, `bun -e`, `expect -c`, `deno eval`), and the text of a here-document or here-string fed to one of them
 * reading its program from standard input (`python3 - <<'EOF'`, `node <<< '…'`). The policy does
 * not judge another language's semantics; it asks unless the code is clearly harmless — it names
 * nothing that runs a program, writes or removes files, loads code, evaluates a string or hides a
 * name (escapes, `chr`, dunders). Code only known at run time (`-c "$X"`, an unquoted
 * here-document, a pipe, a file redirected in) asks too. A script file (`python3 x.py`) is not
 * looked into (see "What it cannot do").
 */
export const INTERPRETER_CODE = 'built-in: interpreter code';

interface Language {
  /** Short letters whose value (rest of the cluster, or the next word) is code. */
  code: string;
  /** Long options whose value is code. */
  codeLong?: readonly string[];
  /** Short letters whose value is the rest of the cluster or the next word (not code). */
  value: string;
  /** Short letters whose value is only ever attached (the rest of the cluster). */
  attached?: string;
  /** Short letters followed by optional digits (`perl -l0 -0777`), then more letters. */
  digits?: string;
  /** Long options that take the next word as their value when not written `--opt=value`. */
  longValue?: readonly string[];
  /** Words that make the code clearly not harmless. */
  risky: RegExp;
  /** Parts removed before {@link risky} is tried: harmless uses of a risky word. */
  harmless?: RegExp;
}

/** Escapes and builders that hide a name from a word test (`\x73ystem`, `chr(115)`, `fromCharCode`). */
const HIDDEN = String.raw`\\[xuUN0-7]|\bchr\b|\bord\b|fromCharCode|\batob\b|\bbase64\b|\bdecode\b|\bunhexlify\b|\bpack\b|\breverse\b|\bjoin\b|\bconcat\b|\bformat\b|%c`;

/** Escapes that spell a name inside a string literal (`'\x73ystem'`). */
const ESCAPES = String.raw`\\[xuUN0-7]`;

/**
 * Python: what runs programs, loads or evaluates code, reaches names indirectly (`getattr`,
 * dunders, `sys.modules`) or changes files; reading (`open('f')`, `json.load`, `os.environ`,
 * `os.path`, `', '.join`) stays allowed — agents run such one-liners all the time. A name built at
 * run time can only be used through the indirect forms, which ask.
 */
const PYTHON: Language = {
  code: 'c',
  value: 'mWXQ',
  longValue: ['check-hash-based-pycs'],
  risky: new RegExp(String.raw`\b(subprocess|pty|ctypes|cffi|importlib|imp|runpy|multiprocessing|system|popen\w*|spawn\w*|fork\w*|execv\w*|execl\w*|exec|eval|compile|unlink|rmtree|rmdir|removedirs|rename\w*|chmod|chown|lchown|kill\w*|truncate|symlink\w*|hardlink_to|link|write_text|write_bytes|touch|mkdir|makedirs|mkfifo|mknod|chdir|chroot|setuid|setgid|putenv|copy\w*file|copytree|copy2|move|pickle|marshal|shelve|breakpoint|webbrowser|socket|urlopen|urlretrieve|setattr|getattr|globals|locals|vars|builtins|atexit|signal|open)\b|\bos\.(remove|replace)\b|\bsys\.modules\b|__|${ESCAPES}`),
  harmless: /\bopen\(\s*(['"])[^'"\\]*\1\s*(,\s*(['"])r?b?t?\3\s*)?(,\s*encoding\s*=\s*(['"])[\w-]+\5\s*)?\)/g,
};

/**
 * Node: what runs programs, loads code by a computed name, evaluates strings, reaches objects
 * indirectly (`globalThis`, `Reflect`, `constructor`, `process[…]`) or changes files; `require` of a
 * literal module name other than those, reading files and `process.env` stay allowed.
 */
const NODE: Language = {
  code: 'ep',
  codeLong: ['eval', 'print'],
  value: 'rC',
  longValue: ['require', 'import', 'loader', 'experimental-loader', 'input-type', 'conditions', 'title'],
  risky: new RegExp(String.raw`\b(child_process|worker_threads|cluster|inspector|getBuiltinModule|mainModule|binding|_linkedBinding|dlopen|spawn\w*|execSync|execFile\w*|fork|eval|Function|constructor|prototype|vm|Worker|WebAssembly|Deno|Bun|Reflect|Proxy|globalThis|global|module|writeFile\w*|appendFile\w*|createWriteStream|unlink\w*|rm|rmSync|rmdir\w*|rename\w*|chmod\w*|chown\w*|copyFile\w*|cp|cpSync|symlink\w*|link\w*|truncate\w*|mkdir\w*|open|openSync|utimes\w*|process\.(chdir|setuid|setgid|abort|kill|dlopen))\b|\b(require|import)\s*\(\s*(?!(['"\x60])[^'"\x60\\]*\4\s*\))|\b(process|require|module)\s*\[|__|${ESCAPES}|fromCharCode|\batob\b`),
  harmless: /\brequire\(\s*(['"])[^'"\\]*\.json\1\s*\)/g,
};

const PERL: Language = {
  code: 'eE',
  value: '',
  attached: 'IMmiFxdCD',
  digits: 'l0',
  risky: new RegExp(String.raw`\b(system|exec|qx|fork|open|opendir|sysopen|unlink|rmdir|rename|kill|eval|do|require|use|no|syscall|chmod|chown|link|symlink|mkdir|truncate|dump|socket|pipe|readpipe|glob|utime|chdir|chroot|STDOUT|ENV|sprintf)\b|\x60|<<|\$\{\s*\\|@\{\s*\[|&\$|->\s*\(|/[a-z]*e[a-z]*\s*(;|$|\}|\))|::|${HIDDEN}`),
};

const RUBY: Language = {
  code: 'e',
  value: 'rICEF',
  attached: 'ixKTW',
  digits: '0',
  risky: new RegExp(String.raw`\b(system|exec|spawn|fork|open|popen\w*|IO|File|FileUtils|Dir|Kernel|eval|instance_eval|class_eval|module_eval|instance_exec|send|public_send|method|const_get|require\w*|load|syscall|Process|Open3|PTY|Socket|ObjectSpace|binding|Fiddle|ENV|trap|at_exit|define_method)\b|__|\x60|%x|${HIDDEN}`),
};

const PHP: Language = {
  code: 'rBRE',
  value: 'cdzfFt',
  risky: new RegExp(String.raw`\b(system|exec|shell_exec|passthru|popen|proc_open|pcntl_\w+|eval|assert|include\w*|require\w*|file_put_contents|fopen|fwrite|unlink|rmdir|rename|chmod|chown|copy|create_function|call_user_func\w*|array_map|array_filter|usort|preg_replace\w*|mail|putenv|dl|FFI|ReflectionFunction|mb_ereg_replace|new|extract|parse_str|\$_\w+)\b|\x60|\$\w+\s*\(|\$\$|${HIDDEN}`),
};

/** awk: `system()`, a pipe (`print | "cmd"`, `"cmd" | getline`), output redirection (`print > f`), loading (`@load`, `@include`), environment and process tables. */
const AWK_RISKY = new RegExp(String.raw`\bsystem\s*\(|(^|[^|])\|(?!\|)|@(load|include|namespace)|\bprintf?\b[^;}]*>|\bclose\s*\(|\bfflush\b|\bENVIRON\b|\bPROCINFO\b|${HIDDEN}`);

/** Interpreters whose code the policy has no word list for: any inline or fed code asks. */
const ANY_CODE = /[^\s]/;
const LUA: Language = { code: 'e', value: 'l', risky: ANY_CODE };
const RSCRIPT: Language = { code: 'e', value: '', longValue: [], risky: ANY_CODE };
const JULIA: Language = { code: 'eE', codeLong: ['eval', 'print'], value: 'JCtLp', risky: ANY_CODE };
const BUN: Language = { code: 'ep', codeLong: ['eval', 'print'], value: 'r', longValue: ['preload', 'cwd'], risky: ANY_CODE };
const EXPECT: Language = { code: 'c', value: 'f', risky: ANY_CODE };

/** awk regular-expression literals (`/error|warn/` after `~`, `(`, `{`, `,`, `!`, `&&`, `||`, `;` or at the start): their `|` is alternation, not a pipe. */
const AWK_REGEX = /(^|[~(,{!&|;]\s*)\/(?:[^/\\\n]|\\.)*\//g;

const LANGUAGES: ReadonlyArray<[RegExp, Language]> = [
  [/^(lua[0-9.]*|luajit)$/, LUA],
  [/^Rscript$/, RSCRIPT],
  [/^julia$/, JULIA],
  [/^bun$/, BUN],
  [/^expect$/, EXPECT],
  [/^(python|pypy)[0-9.]*$/, PYTHON],
  [/^(node|nodejs)$/, NODE],
  [/^perl[0-9.]*$/, PERL],
  [/^ruby[0-9.]*$/, RUBY],
  [/^php[0-9.]*(-cli)?$/, PHP],
];

/** Interpreter command names (the cheap test before {@link interpreterCode}). */
export function isInterpreter(name: string): boolean {
  return /^(awk|gawk|mawk|nawk|deno)$/.test(name) || LANGUAGES.some(([re]) => re.test(name));
}

/** Why `code` is not clearly harmless, or null. */
function riskyCode(code: string, lang: { risky: RegExp; harmless?: RegExp }): string | null {
  const text = lang.harmless ? code.replace(lang.harmless, '') : code;
  const m = lang.risky.exec(text);
  return m ? m[0].trim() || m[0] : null;
}

/**
 * Why the code an interpreter is given needs confirmation (see {@link INTERPRETER_CODE}), or null
 * when it is clearly harmless, a script file, or an interactive interpreter in the terminal.
 */
export function interpreterCode(name: string, view: CommandView, cmd: SimpleCommand): string | null {
  if (/^(awk|gawk|mawk|nawk)$/.test(name)) return awkCode(name, view);
  if (name === 'deno') return view.words.slice(1).some((w) => w.text === 'eval' || w.dynamic) ? 'deno eval runs code the policy does not judge' : null;
  const lang = LANGUAGES.find(([re]) => re.test(name))?.[1];
  if (!lang) return null;
  const args = view.words.slice(1);
  const codes: ShellWord[] = [];
  let script: ShellWord | null = null;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (w.dynamic && codes.length === 0) return `${name}'s arguments are only known at run time (${w.source}); they may be code it runs`;
    if (t === '--') {
      script = args[i + 1] ?? null;
      break;
    }
    if (t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      const long = eq < 0 ? t.slice(2) : t.slice(2, eq);
      const value = eq >= 0 ? { ...w, text: t.slice(eq + 1) } : lang.codeLong?.includes(long) || lang.longValue?.includes(long) ? args[++i] : undefined;
      if (lang.codeLong?.some((c) => c.startsWith(long)) && value) codes.push(value);
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const l = t[j]!;
        if (lang.attached?.includes(l)) break;
        if (lang.digits?.includes(l)) {
          while (j + 1 < t.length && /[0-9]/.test(t[j + 1]!)) j++;
          continue;
        }
        if (lang.code.includes(l) || lang.value.includes(l)) {
          const value = j + 1 < t.length ? { ...w, text: t.slice(j + 1) } : args[++i];
          if (lang.code.includes(l) && value) codes.push(value);
          break;
        }
      }
      // python: `-c` ends the options (what follows is sys.argv)
      if (lang === PYTHON && codes.length > 0) break;
      continue;
    }
    if (t === '-') break; // the program is standard input
    if (codes.length === 0) script = w;
    break;
  }
  if (codes.length > 0) {
    const dynamic = codes.find((c) => c.dynamic);
    if (dynamic) return `the code given to ${name} is only known at run time (${dynamic.source})`;
    const hit = riskyCode(codes.map((c) => c.text).join('\n'), lang);
    return hit ? `the code given to ${name} uses ${JSON.stringify(hit)}, which can run programs or change files — the policy does not judge ${name} code` : null;
  }
  let fd = 0;
  if (script) {
    const d = descriptorPath(script);
    if (d === null) return null; // a script file: not looked into
    fd = d;
  }
  const fed = inputText(cmd, fd);
  if (fed === 'unknown' || (fed === null && (script !== null || (fd === 0 && (cmd.pipedInput || view.openArgs))))) {
    return `${name} reads the code it runs from its input, which is only known at run time`;
  }
  if (fed === null) return null; // an interactive interpreter in the terminal
  const hit = riskyCode(fed.text, lang);
  return hit ? `the code fed to ${name} uses ${JSON.stringify(hit)}, which can run programs or change files — the policy does not judge ${name} code` : null;
}

/** awk's program: the first operand unless `-f`/`-E`/`--file`/`--exec` names a program file; `-e`/`--source` add program text; `-l`/`--load` loads a library. */
function awkCode(name: string, view: CommandView): string | null {
  const args = view.words.slice(1);
  const program: ShellWord[] = [];
  let fromFile = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (w.dynamic && program.length === 0 && !fromFile) return `${name}'s program is only known at run time (${w.source})`;
    if (t === '--') {
      if (!fromFile && args[i + 1]) program.push(args[i + 1]!);
      break;
    }
    if (t.startsWith('--') && t.length > 2) {
      const eq = t.indexOf('=');
      const long = eq < 0 ? t.slice(2) : t.slice(2, eq);
      if (/^(lo|loa|load)$/.test(long) || (long.length >= 3 && 'load'.startsWith(long))) return `${name} --load loads a library, which runs code`;
      const takes = /^(f|fi|fil|file|e|ex|exe|exec|s|so|sou|sour|sourc|source|i|in|inc|incl|inclu|includ|include|v|va|var|vars|assign|field-separator|F)$/.test(long) || ['assign', 'field-separator', 'file', 'exec', 'source', 'include'].some((n) => n.startsWith(long));
      const value = eq >= 0 ? { ...w, text: t.slice(eq + 1) } : takes ? args[++i] : undefined;
      if (value && ['source'].some((n) => n.startsWith(long))) program.push(value);
      if (['file', 'exec'].some((n) => n.startsWith(long))) fromFile = true;
      continue;
    }
    if (t.startsWith('-') && t.length > 1) {
      const l = t[1]!;
      if (l === 'l') return `${name} -l loads a library, which runs code`;
      if ('fFvEeil'.includes(l)) {
        const value = t.length > 2 ? { ...w, text: t.slice(2) } : args[++i];
        if (l === 'e' && value) program.push(value);
        if (l === 'f' || l === 'E') fromFile = true;
      }
      continue;
    }
    if (!fromFile && program.length === 0) program.push(w);
    break;
  }
  const dynamic = program.find((p) => p.dynamic);
  if (dynamic) return `${name}'s program is only known at run time (${dynamic.source})`;
  const hit = program.length > 0 ? riskyCode(program.map((p) => p.text).join('\n'), { risky: AWK_RISKY, harmless: AWK_REGEX }) : null;
  return hit ? `the ${name} program uses ${JSON.stringify(hit)}, which can run programs or write files — the policy does not judge awk code` : null;
}
