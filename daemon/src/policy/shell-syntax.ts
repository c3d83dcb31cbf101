import { createRequire } from 'node:module';
import type { ShParser, ShSyntax } from 'mvdan-sh';
import { homeDirectory, homeUserName } from './paths.js';

/**
 * The shell parser behind the command policy (issue 5): `mvdan-sh` (mvdan.cc/sh/v3, Bash
 * dialect, compiled to JavaScript by GopherJS) parses a command line into a syntax tree; this
 * file gives typed, fast access to that tree. No regular expression ever decides what a command is.
 *
 * Speed: mvdan-sh's JavaScript wrappers convert a Go slice into fresh JavaScript objects on every
 * field read (≈50 µs for `CallExpr.Args`), and its `Walk` is reflection-based (≈0.5 ms for a short
 * line). The policy therefore reads the GopherJS values under the wrapper (`__internal_object__`):
 * pointers are objects whose `constructor.string` names the Go type (`*syntax.CallExpr`), a nil
 * pointer is its type's `nil` singleton, slices are `{$array, $offset, $length}`, and strings hold
 * UTF-8 bytes one per char code. {@link selfCheck} verifies that layout when the parser is first
 * used, so a different mvdan-sh build fails loudly instead of being misread. One parser instance
 * is reused (parsing is synchronous).
 *
 * Memory: mvdan-sh costs ≈16 MB of RSS, so it is loaded (synchronously, ≈50 ms) on the first
 * command judged, not when the daemon starts: an idle daemon does not carry it.
 */

/** A raw GopherJS value of the syntax tree (see the file comment). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ShNode = any;

let syntaxModule: ShSyntax | null = null;
let parserInstance: ShParser | null = null;

function syntax(): ShSyntax {
  syntaxModule ??= (createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax }).syntax;
  return syntaxModule;
}

function parser(): ShParser {
  if (!parserInstance) {
    const S = syntax();
    parserInstance = S.NewParser(S.Variant(S.LangBash), S.KeepComments(false));
    selfCheck(parserInstance);
  }
  return parserInstance;
}

/** A parse that failed: the parser's message (`line:col: …`) and whether more input was expected. */
export interface ParseFailure {
  ok: false;
  message: string;
  /** The input ended too early: a dangling `&&`/`||`/`|`, an open quote or block. */
  incomplete: boolean;
}

/** Parses Bash source into the raw `*syntax.File`. Never throws (except on a broken mvdan-sh build). */
export function parseShell(src: string): { ok: true; file: ShNode } | ParseFailure {
  const p = parser();
  let wrapped: ShNode;
  try {
    wrapped = p.Parse(src, '');
  } catch (err) {
    const message = typeof (err as { Error?: unknown })?.Error === 'function' ? String((err as { Error: () => string }).Error()) : String(err);
    let incomplete = false;
    try {
      incomplete = syntax().IsIncomplete(err);
    } catch {
      // not a parser error
    }
    return { ok: false, message: goString(message), incomplete };
  }
  return { ok: true, file: wrapped.__internal_object__ };
}

/** The Go type name of a node without package and pointer (`CallExpr`), or null for nil. */
export function nodeType(n: ShNode): string | null {
  if (n === null || n === undefined) return null;
  const t: unknown = n.constructor?.string;
  if (typeof t !== 'string' || n === n.constructor.nil) return null;
  return t.startsWith('*syntax.') ? t.slice(8) : t;
}

/** True for a nil pointer or interface. */
export const isNil = (n: ShNode): boolean => nodeType(n) === null;

/** The elements of a Go slice. */
export function items(slice: ShNode): ShNode[] {
  if (!slice || !slice.$array) return [];
  const out: ShNode[] = new Array(slice.$length);
  for (let i = 0; i < slice.$length; i++) out[i] = slice.$array[slice.$offset + i];
  return out;
}

/** A Go string (UTF-8 bytes, one per char code) as a JavaScript string. */
export function goString(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(s) ? Buffer.from(s, 'latin1').toString('utf8') : s;
}

/** Byte offsets `[start, end)` of a node in the source. */
export function span(n: ShNode): [number, number] {
  return [n.Pos().offs as number, n.End().offs as number];
}

// ---- operator tokens, learnt from the parser itself ----------------------------------------------

const REDIRECT_SAMPLES = ['>', '>>', '<', '<>', '<&', '>&', '>|', '<<<', '&>', '&>>'] as const;
const redirectOps = new Map<number, string>();
const binaryOps = new Map<number, string>();
/** Operators of `${NAME=word}` and `${NAME:=word}`: they assign NAME. */
const assigningParamOps = new Set<number>();
/** Arithmetic operators that assign their left operand (`=`, `+=`, …, `++`, `--`). */
const assigningArithOps = new Set<number>();
/** The operator of `${NAME@OP}` (`@P`, `@Q`, …). */
let transformParamOp = -1;
/** `[[ … ]]` operators whose operands bash evaluates as arithmetic (`-eq` … `-ge`) or as a variable name (`-v`). */
const evaluatingTestOps = new Set<number>();

function firstStmt(p: ShParser, src: string): ShNode {
  return items(p.Parse(src, '').__internal_object__.Stmts)[0];
}

/**
 * Verifies the raw layout this file relies on and learns the operator tokens by parsing samples,
 * so renumbered tokens in another mvdan-sh build cannot change the meaning of a redirection.
 * @throws Error when the layout is not the expected one.
 */
function selfCheck(p: ShParser): void {
  const fail = (what: string): never => {
    throw new Error(`mvdan-sh: unexpected GopherJS layout (${what}); the command policy supports mvdan-sh 0.10.x`);
  };
  const f = p.Parse('a "b" > c', '').__internal_object__;
  if (nodeType(f) !== 'File') fail('File');
  const st = items(f.Stmts)[0];
  if (nodeType(st) !== 'Stmt' || nodeType(st.Cmd) !== 'CallExpr') fail('Stmt/CallExpr');
  const args = items(st.Cmd.Args);
  if (args.length !== 2 || nodeType(items(args[1].Parts)[0]) !== 'DblQuoted' || items(args[0].Parts)[0].Value !== 'a') fail('Word/Lit');
  if (span(st)[1] !== 9 || !isNil(items(st.Redirs)[0].N)) fail('positions/nil');
  for (const op of REDIRECT_SAMPLES) redirectOps.set(items(firstStmt(p, `a ${op} b`).Redirs)[0].Op as number, op);
  redirectOps.set(items(firstStmt(p, 'a <<E\nE\n').Redirs)[0].Op as number, '<<');
  redirectOps.set(items(firstStmt(p, 'a <<-E\nE\n').Redirs)[0].Op as number, '<<-');
  for (const op of ['&&', '||', '|', '|&']) binaryOps.set(firstStmt(p, `a ${op} b`).Cmd.Op as number, op);
  for (const op of ['=', ':=']) assigningParamOps.add(items(items(firstStmt(p, `a \${b${op}c}`).Cmd.Args)[1].Parts)[0].Exp.Op as number);
  for (const op of ['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '^=', '|=']) assigningArithOps.add(firstStmt(p, `(( a ${op} 1 ))`).Cmd.X.Op as number);
  for (const e of ['a++', 'a--', '++a', '--a']) assigningArithOps.add(firstStmt(p, `(( ${e} ))`).Cmd.X.Op as number);
  transformParamOp = items(items(firstStmt(p, 'a ${b@P}').Cmd.Args)[1].Parts)[0].Exp.Op as number;
  for (const op of ['-eq', '-ne', '-lt', '-le', '-gt', '-ge']) evaluatingTestOps.add(firstStmt(p, `[[ a ${op} b ]]`).Cmd.X.Op as number);
  evaluatingTestOps.add(firstStmt(p, '[[ -v a ]]').Cmd.X.Op as number);
  if (redirectOps.size !== REDIRECT_SAMPLES.length + 2 || binaryOps.size !== 4 || assigningParamOps.size !== 2 || evaluatingTestOps.size !== 7 || assigningArithOps.size < 13) fail('operator tokens');
}

/** The variable a `${NAME=word}` / `${NAME:=word}` expansion assigns, or null for any other node. */
export function paramAssignment(p: ShNode): string | null {
  parser();
  if (nodeType(p) !== 'ParamExp' || isNil(p.Exp) || !assigningParamOps.has(p.Exp.Op as number) || isNil(p.Param)) return null;
  return goString(p.Param.Value as string);
}

/**
 * The variable an arithmetic assignment sets (`(( PS1 = 0 ))`, `let PATH+=1`, `(( n++ ))`), or
 * null for any other arithmetic node.
 */
export function arithmeticAssignee(x: ShNode): string | null {
  parser();
  const t = nodeType(x);
  if ((t !== 'BinaryArithm' && t !== 'UnaryArithm') || !assigningArithOps.has(x.Op as number) || nodeType(x.X) !== 'Word') return null;
  const parts = items(x.X.Parts);
  const first = parts[0];
  if (parts.length !== 1) return null;
  if (nodeType(first) === 'Lit') return goString(first.Value as string);
  return nodeType(first) === 'ParamExp' && !isNil(first.Param) ? goString(first.Param.Value as string) : null;
}

/**
 * `${!NAME}`: indirect expansion — bash evaluates the value of NAME as a variable name, and an
 * array subscript in it (`a[$(cmd)]`) runs code. Not `${!PREFIX*}` or `${!ARRAY[@]}`, which only list names.
 */
export function isIndirectExpansion(p: ShNode): boolean {
  return nodeType(p) === 'ParamExp' && p.Excl === true && !(p.Names > 0) && isNil(p.Index);
}

/**
 * `${NAME@P}`: prompt expansion of the value, which runs the command substitutions in it (bash
 * expands `$(…)` and backquotes of a prompt string) — code the policy never saw.
 */
export function isPromptExpansion(p: ShNode): boolean {
  parser();
  if (nodeType(p) !== 'ParamExp' || isNil(p.Exp) || (p.Exp.Op as number) !== transformParamOp || isNil(p.Exp.Word)) return false;
  return items(p.Exp.Word.Parts).some((q) => nodeType(q) === 'Lit' && goString(q.Value as string) === 'P');
}

/**
 * The operands of a `[[ … ]]` test that bash evaluates again: both sides of `-eq`, `-ne`, `-lt`,
 * `-le`, `-gt`, `-ge` (arithmetic) and the name of `-v`; an array subscript written in them is
 * expanded at that point (`[[ $x -eq 'a[$(cmd)]' ]]` runs cmd). Empty for any other test.
 */
export function evaluatedTestOperands(x: ShNode): ShNode[] {
  parser();
  const t = nodeType(x);
  if ((t !== 'BinaryTest' && t !== 'UnaryTest') || !evaluatingTestOps.has(x.Op as number)) return [];
  return t === 'BinaryTest' ? [x.X, x.Y] : [x.X];
}

/**
 * Text that bash expands when it evaluates an array subscript written in it: a `[` followed by
 * `$(`, a backquote, `${` or `$[` (`a[$(cmd)]`). Such text, given where bash evaluates a variable
 * name or an arithmetic expression (`let`, `(( ))`, `declare -i`, `read`, `printf -v`, `[[ -v ]]`,
 * `-eq` operands), runs the command it holds although the parser saw only a quoted string.
 */
export function subscriptRunsCode(text: string): boolean {
  return /\[[^]*(\$\(|`|\$\{|\$\[)/.test(text);
}

/**
 * A word's text with its quotes removed, where a command or process substitution counts as
 * `substitution` (`$(`: its output is expanded again; `_` where only literal code counts) and any
 * other expansion as `_`: what bash would expand a second time when it evaluates the word
 * as a variable name or an arithmetic expression (see {@link subscriptRunsCode}).
 */
export function evaluatedText(word: ShNode, substitution = '$('): string {
  let out = '';
  for (const p of items(word.Parts)) {
    switch (nodeType(p)) {
      case 'Lit':
        out += unescapeUnquoted(goString(p.Value as string)).text;
        break;
      case 'SglQuoted':
        out += singleQuotedText(p);
        break;
      case 'DblQuoted':
        for (const q of items(p.Parts)) out += nodeType(q) === 'Lit' ? unescapeDouble(goString(q.Value as string)) : nodeType(q) === 'CmdSubst' ? substitution : '_';
        break;
      case 'CmdSubst':
      case 'ProcSubst':
        out += substitution;
        break;
      default:
        out += '_';
    }
  }
  return out;
}

/** `$HOME` or `${HOME}` with no operator: the shell gives the home folder, which the policy knows. */
function isPlainHome(p: ShNode): boolean {
  return plainParam(p) === 'HOME';
}

/** The name of `$NAME` / `${NAME}` with no operator, index or other decoration; null otherwise. */
function plainParam(p: ShNode): string | null {
  const plain =
    !isNil(p.Param) &&
    !p.Excl &&
    !p.Length &&
    !p.Width &&
    isNil(p.Index) &&
    isNil(p.Slice) &&
    isNil(p.Repl) &&
    isNil(p.Exp) &&
    !(p.Names > 0);
  return plain ? goString(p.Param.Value as string) : null;
}

/** Values variables were given earlier in the line: name → the literal texts it may hold. */
export type KnownValues = ReadonlyMap<string, readonly string[]>;

const MAX_WORD_VALUES = 16;

/**
 * The texts a dynamic word may become when its variables hold the values this line gave them
 * (see {@link ShellWord.values}); null when a part is something else (`$(…)`, `${X:-y}`, an
 * unknown variable) or no variable is known. An unquoted value with blanks also counts split
 * into its words.
 */
export function wordValues(word: ShNode, vars: KnownValues): string[] | null {
  if (vars.size === 0) return null;
  let out = [''];
  let used = false;
  const append = (texts: readonly string[]): boolean => {
    const next: string[] = [];
    for (const a of out) for (const t of texts) next.push(a + t);
    out = next;
    return out.length <= MAX_WORD_VALUES;
  };
  const param = (p: ShNode, quoted: boolean): boolean => {
    const name = plainParam(p);
    if (name === 'HOME') return append([homeDirectory()]);
    const known = name === null ? undefined : vars.get(name);
    if (known === undefined) return false;
    used = true;
    return append(quoted ? known : known.flatMap((v) => [v, ...v.split(/\s+/).filter((x) => x !== '' && x !== v)]));
  };
  for (const p of items(word.Parts)) {
    let ok: boolean;
    switch (nodeType(p)) {
      case 'Lit':
        ok = append([unescapeUnquoted(goString(p.Value as string)).text]);
        break;
      case 'SglQuoted':
        ok = append([singleQuotedText(p)]);
        break;
      case 'DblQuoted':
        ok = items(p.Parts).every((q) => (nodeType(q) === 'Lit' ? append([unescapeDouble(goString(q.Value as string))]) : nodeType(q) === 'ParamExp' && param(q, true)));
        break;
      case 'ParamExp':
        ok = param(p, false);
        break;
      default:
        ok = false;
    }
    if (!ok) return null;
  }
  return used ? out : null;
}

/** The text of a redirection operator (`>`, `>>`, `<<`, `&>`, …). */
export function redirectOp(code: number): string {
  parser();
  return redirectOps.get(code) ?? `op${code}`;
}

/** The text of a binary command operator (`&&`, `||`, `|`, `|&`). */
export function binaryOp(code: number): string {
  parser();
  return binaryOps.get(code) ?? `op${code}`;
}

// ---- here-documents ------------------------------------------------------------------------------

/** A here-document delimiter with any quoting (`'EOF'`, `"EOF"`, `\EOF`, `E"OF"`) has a literal body. */
export function isQuotedDelimiter(word: ShNode): boolean {
  return items(word.Parts).some((p) => nodeType(p) !== 'Lit' || goString(p.Value as string).includes('\\'));
}

/** The body of a here-document redirection as written, without its closing delimiter line. */
export function heredocBody(r: ShNode, op: string, delimiter: string, src: SourceText): string {
  // The parser's span of the body ends with the closing delimiter line: that line is not part of it.
  const body = src.of(r.Hdoc);
  const last = body.lastIndexOf('\n');
  const tail = last < 0 ? body : body.slice(last + 1);
  if (delimiter !== '' && (tail === delimiter || (op === '<<-' && tail.replace(/^\t+/, '') === delimiter))) return last < 0 ? '' : body.slice(0, last + 1);
  return body;
}

/**
 * The output of a command substitution whose output is fixed text (issue 8): `$(cat <<'EOF' … EOF)`
 * — `cat` alone, reading a quoted here-document — is its body without trailing newlines (what
 * `$(…)` keeps), so `git commit -m "$(cat <<'EOF' … EOF)"` has a known message. Null for anything
 * else (its output is only known at run time). The commands inside are judged on their own anyway.
 */
export function staticSubstitutionOutput(subst: ShNode, src: SourceText): string | null {
  const stmts = items(subst.Stmts);
  if (stmts.length !== 1) return null;
  const st = stmts[0];
  if (st.Background === true || st.Negated === true || nodeType(st.Cmd) !== 'CallExpr') return null;
  const args = items(st.Cmd.Args);
  if (items(st.Cmd.Assigns).length > 0 || args.length !== 1) return null;
  const name = resolveWord(args[0], src);
  if (name.dynamic || name.glob || name.text !== 'cat') return null;
  const redirs = items(st.Redirs);
  if (redirs.length !== 1) return null;
  const r = redirs[0];
  const op = redirectOp(r.Op as number);
  if ((op !== '<<' && op !== '<<-') || !isNil(r.N) || isNil(r.Hdoc) || !isQuotedDelimiter(r.Word)) return null;
  let body = heredocBody(r, op, resolveWord(r.Word, src).text, src);
  if (op === '<<-') body = body.replace(/^\t+/gm, '');
  return body.replace(/\n+$/, '');
}

// ---- words ---------------------------------------------------------------------------------------

/**
 * A shell word as the shell would see it before expansion: quotes and backslashes removed,
 * `$'…'` escapes applied, and `$HOME` / `${HOME}` replaced by the daemon's home folder (the value
 * the shell inherits; assigning `HOME` needs confirmation, environment.ts). `dynamic` when part of
 * it is only known at run time (parameter, arithmetic or command expansion, brace expansion);
 * `glob` when an unquoted `*`, `?` or `[` would expand against file names. `source` is the word as
 * written.
 */
export interface ShellWord {
  text: string;
  dynamic: boolean;
  glob: boolean;
  source: string;
  /**
   * For a dynamic word made only of literal text and variables this same line set to literal
   * values earlier (`d=/usr; rm -rf $d`, `for f in /dev/sda; do … > "$f"`): the texts it may
   * become (at most 16). The word stays dynamic (the variable may hold something else at run
   * time); the floor checks each value as well.
   */
  values?: string[];
}

/**
 * A word for messages: the text after quote removal, or the source as written when part of it is
 * a variable (`$X`, and `$HOME`, whose text is the resolved home folder).
 */
export function shownWord(w: ShellWord): string {
  return w.dynamic || w.source.includes('$') ? w.source : w.text;
}

/** A literal word (argv mode, or text already resolved). */
export function literalWord(text: string): ShellWord {
  return { text, dynamic: false, glob: false, source: text };
}

/** Slices source text by UTF-8 byte offsets (the parser's positions). */
export class SourceText {
  private readonly bytes: Buffer;
  constructor(readonly text: string) {
    this.bytes = Buffer.from(text, 'utf8');
  }
  slice(start: number, end: number): string {
    return this.bytes.subarray(start, end).toString('utf8');
  }
  of(node: ShNode): string {
    const [a, b] = span(node);
    return this.slice(a, b);
  }
}

const BRACE_EXPANSION = /\{[^{}]*(,|\.\.)[^{}]*\}/;
/** Brace expansions produce at most this many words; beyond, the word stays dynamic. */
const MAX_BRACE_WORDS = 64;

/**
 * A command argument as the shell would pass it: like {@link resolveWord}, but a brace
 * expansion of literal parts (`/{usr,etc}`, `.holdfast.{yaml,x}`, `{rm,-rf,/}`, `f{1..3}`) becomes
 * the words bash would make of it, each judged on its own. A brace expansion next to a run-time
 * part (`{a,b}$X`) or one that makes more than 64 words stays one dynamic word.
 */
export function resolveWords(word: ShNode, src: SourceText): ShellWord[] {
  const w = resolveWord(word, src);
  if (!w.dynamic || !w.braces) return [w];
  const marked = markedChars(word, src);
  if (marked === null) return [w];
  const out = expandBraces(marked, 0);
  if (out === null || out.length === 0) return [w];
  return out.map((chars) => {
    let text = '';
    let glob = false;
    for (const c of chars) {
      text += c.c;
      if (c.special && (c.c === '*' || c.c === '?' || c.c === '[')) glob = true;
    }
    return { text, dynamic: false, glob, source: w.source };
  });
}

/** One character of a word: `special` when unquoted and unescaped (it can be a brace or glob). */
interface MarkedChar {
  c: string;
  special: boolean;
}

/** The word's characters after quote removal, marked; null when part of it is only known at run time. */
function markedChars(word: ShNode, src: SourceText): MarkedChar[] | null {
  const out: MarkedChar[] = [];
  const plain = (text: string): void => {
    for (const c of text) out.push({ c, special: false });
  };
  for (const p of items(word.Parts)) {
    switch (nodeType(p)) {
      case 'Lit':
        out.push(...unquotedChars(goString(p.Value as string)));
        break;
      case 'SglQuoted':
        plain(singleQuotedText(p));
        break;
      case 'DblQuoted':
        for (const q of items(p.Parts)) {
          if (nodeType(q) === 'Lit') plain(unescapeDouble(goString(q.Value as string)));
          else if (nodeType(q) === 'ParamExp' && isPlainHome(q)) plain(homeDirectory());
          else return null;
        }
        break;
      case 'ParamExp':
        if (!isPlainHome(p)) return null;
        plain(homeDirectory());
        break;
      default:
        return null;
    }
  }
  return out;
}

/** Bash brace expansion over marked characters; null when it would make too many words. */
function expandBraces(chars: MarkedChar[], depth: number): MarkedChar[][] | null {
  if (depth > 8) return null;
  for (let i = 0; i < chars.length; i++) {
    if (!chars[i]!.special || chars[i]!.c !== '{') continue;
    if (i > 0 && chars[i - 1]!.special && chars[i - 1]!.c === '$') continue;
    // the matching close brace and the top-level commas
    let level = 0;
    const commas: number[] = [];
    let close = -1;
    for (let j = i + 1; j < chars.length; j++) {
      const x = chars[j]!;
      if (!x.special) continue;
      if (x.c === '{') level++;
      else if (x.c === '}') {
        if (level === 0) {
          close = j;
          break;
        }
        level--;
      } else if (x.c === ',' && level === 0) commas.push(j);
    }
    if (close < 0) return [chars];
    const pre = chars.slice(0, i);
    const post = chars.slice(close + 1);
    let alternatives: MarkedChar[][];
    if (commas.length > 0) {
      alternatives = [];
      let from = i + 1;
      for (const c of [...commas, close]) {
        alternatives.push(chars.slice(from, c));
        from = c + 1;
      }
    } else {
      const seq = sequence(chars.slice(i + 1, close).map((x) => x.c).join(''));
      if (seq === undefined) continue; // `{a}`, `{}`: literal
      if (seq === null) return null;
      alternatives = seq.map((t) => [...t].map((c) => ({ c, special: false })));
    }
    const tails = expandBraces(post, depth + 1);
    if (tails === null) return null;
    const out: MarkedChar[][] = [];
    for (const a of alternatives) {
      const heads = expandBraces(a, depth + 1);
      if (heads === null) return null;
      for (const h of heads) {
        for (const t of tails) {
          out.push([...pre, ...h, ...t]);
          if (out.length > MAX_BRACE_WORDS) return null;
        }
      }
    }
    return out;
  }
  return [chars];
}

/** `{1..5}`, `{05..10..5}`, `{a..e}`: its words; undefined when not a sequence; null when too long. */
function sequence(body: string): string[] | null | undefined {
  const num = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  const chr = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  const m = num ?? chr;
  if (!m) return undefined;
  const step = Math.abs(Number(m[3] ?? 1)) || 1;
  const a = num ? Number(m[1]) : m[1]!.charCodeAt(0);
  const b = num ? Number(m[2]) : m[2]!.charCodeAt(0);
  if (Math.abs(b - a) / step + 1 > MAX_BRACE_WORDS) return null;
  const width = num && (/^-?0\d/.test(m[1]!) || /^-?0\d/.test(m[2]!)) ? Math.max(m[1]!.length, m[2]!.length) : 0;
  const out: string[] = [];
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
    if (!num) out.push(String.fromCharCode(v));
    else {
      const s = String(Math.abs(v)).padStart(width - (v < 0 ? 1 : 0), '0');
      out.push(v < 0 ? `-${s}` : s);
    }
  }
  return out;
}

/** Resolves a `Word` node (see {@link ShellWord}). */
export function resolveWord(word: ShNode, src: SourceText): ShellWord & { braces?: boolean } {
  const out: ShellWord & { braces?: boolean } = { text: '', dynamic: false, glob: false, source: src.of(word) };
  let braceChar = false;
  for (const p of items(word.Parts)) {
    switch (nodeType(p)) {
      case 'Lit': {
        const raw = goString(p.Value as string);
        const { text, glob } = unescapeUnquoted(raw);
        if (glob) out.glob = true;
        if (raw.includes('{')) braceChar = true;
        out.text += text;
        break;
      }
      case 'SglQuoted':
        out.text += singleQuotedText(p);
        break;
      case 'DblQuoted':
        for (const q of items(p.Parts)) {
          const fixed = nodeType(q) === 'CmdSubst' ? staticSubstitutionOutput(q, src) : null;
          if (nodeType(q) === 'Lit') out.text += unescapeDouble(goString(q.Value as string));
          else if (nodeType(q) === 'ParamExp' && isPlainHome(q)) out.text += homeDirectory();
          else if (fixed !== null) out.text += fixed;
          else {
            out.dynamic = true;
            out.text += src.of(q);
          }
        }
        break;
      case 'ExtGlob':
        // `@(usr|etc)`, `!(x)` under `shopt -s extglob`: what it matches is not judged, so it is
        // treated as a run-time word (a deny rule becomes possible, the floor asks).
        out.glob = true;
        out.dynamic = true;
        out.text += src.of(p);
        break;
      case 'ParamExp':
        if (isPlainHome(p)) {
          out.text += homeDirectory();
          break;
        }
        out.dynamic = true;
        out.text += src.of(p);
        break;
      default:
        // ArithmExp, CmdSubst, ProcSubst: known only at run time.
        out.dynamic = true;
        out.text += src.of(p);
    }
  }
  if (tildeOnlyKnownAtRunTime(word)) out.dynamic = true;
  if (braceChar) {
    // A brace expansion (`{a,b}`, `{1..3}`, also across quotes: `{"/",x}`): more than one word at run time.
    const marked = markedChars(word, src);
    const expanded = marked === null ? null : expandBraces(marked, 0);
    if (marked === null ? BRACE_EXPANSION.test(out.text) : expanded === null || expanded.length !== 1 || expanded[0]!.length !== marked.length) {
      out.dynamic = true;
      out.braces = true;
    }
  }
  return out;
}

/**
 * A leading unquoted tilde prefix the policy cannot place: `~+` (the current folder), `~-` (the
 * previous one), `~+N`/`~-N` (the directory stack), and `~NAME/…` with more after the slash for
 * another user (`~NAME` and `~NAME/` alone are a home folder, judged as such by paths.ts).
 */
function tildeOnlyKnownAtRunTime(word: ShNode): boolean {
  const first = items(word.Parts)[0];
  if (!first || nodeType(first) !== 'Lit') return false;
  const raw = goString(first.Value as string);
  if (!raw.startsWith('~')) return false;
  const slash = raw.indexOf('/');
  const prefix = slash < 0 ? raw.slice(1) : raw.slice(1, slash);
  if (/^[+-]\d*$/.test(prefix)) return true;
  if (prefix === '' || prefix === homeUserName()) return false;
  const rest = slash < 0 ? '' : raw.slice(slash + 1);
  return rest !== '' || items(word.Parts).length > 1;
}

/** Backslash removal outside quotes; reports unescaped glob characters. */
function unescapeUnquoted(raw: string): { text: string; glob: boolean } {
  let text = '';
  let glob = false;
  for (const m of unquotedChars(raw)) {
    if (m.special && (m.c === '*' || m.c === '?' || m.c === '[')) glob = true;
    text += m.c;
  }
  return { text, glob };
}

/**
 * The characters of unquoted text after backslash removal (a backslash-newline is a line
 * continuation and vanishes), each marked `special` unless a backslash escaped it — the one
 * quote-handling loop behind {@link unescapeUnquoted} and brace expansion.
 */
function unquotedChars(raw: string): MarkedChar[] {
  const out: MarkedChar[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\') {
      out.push({ c, special: true });
      continue;
    }
    if (i + 1 < raw.length && raw[i + 1] !== '\n') out.push({ c: raw[i + 1]!, special: false });
    i++;
  }
  return out;
}

/** The text of a `'…'` or `$'…'` part (ANSI-C escapes applied to the latter). */
function singleQuotedText(p: ShNode): string {
  return p.Dollar ? ansiC(goString(p.Value as string)) : goString(p.Value as string);
}

/** Backslash removal inside double quotes: only before `$`, backquote, `"`, `\` and newline. */
function unescapeDouble(raw: string): string {
  let text = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    const n = raw[i + 1];
    if (c === '\\' && n !== undefined && '$`"\\\n'.includes(n)) {
      if (n !== '\n') text += n;
      i++;
      continue;
    }
    text += c;
  }
  return text;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/**
 * Bash `$'…'` (ANSI-C quoting) escapes. Like bash, the string ends at a NUL (`\0`, `\x00`,
 * `\c@`): `$'/tmp/x\x00y'` is `/tmp/x`.
 */
export function ansiC(raw: string): string {
  const out = ansiCFull(raw);
  const nul = out.indexOf('\0');
  return nul < 0 ? out : out.slice(0, nul);
}

function ansiCFull(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\' || i + 1 >= raw.length) {
      out += c;
      continue;
    }
    const n = raw[++i]!;
    if (n in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[n];
    } else if (n >= '0' && n <= '7') {
      const m = /^[0-7]{1,3}/.exec(raw.slice(i))![0];
      out += String.fromCharCode(parseInt(m, 8) & 0xff);
      i += m.length - 1;
    } else if (n === 'x' || n === 'u' || n === 'U') {
      const max = n === 'x' ? 2 : n === 'u' ? 4 : 8;
      const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(raw.slice(i + 1));
      if (!m) {
        out += `\\${n}`;
        continue;
      }
      const code = parseInt(m[0], 16);
      out += code <= 0x10ffff ? String.fromCodePoint(code) : '';
      i += m[0].length;
    } else if (n === 'c' && i + 1 < raw.length) {
      out += String.fromCharCode(raw.charCodeAt(++i) & 0x1f);
    } else {
      out += `\\${n}`;
    }
  }
  return out;
}

/**
 * The value of a word that is only an arithmetic expansion of constants (`$((1))`, `"$(( 0-1 ))"`,
 * `$[2-1]`, `$((0x10 / 2))`), computed as bash does (64-bit integers approximated by JavaScript
 * numbers; `0x` hex, leading-`0` octal, `BASE#DIGITS`; `+ - * / % ** ~ ( )`, unary signs). Null
 * when the word is anything else or names a variable, a substitution, an assignment, a comparison…
 * — its value is then only known at run time.
 */
export function constantArithmetic(source: string): number | null {
  const m = /^"?(?:\$\(\(([^]*)\)\)|\$\[([^]*)\])"?$/.exec(source.trim());
  if (!m) return null;
  const expr = m[1] ?? m[2] ?? '';
  const tokens = expr.match(/\s+|\*\*|[-+*/%~()]|[0-9][0-9A-Za-z@_#]*|./g) ?? [];
  const toks = tokens.filter((t) => !/^\s+$/.test(t));
  let at = 0;
  const number = (t: string): number | null => {
    let v: number;
    if (/^0[xX][0-9a-fA-F]+$/.test(t)) v = parseInt(t.slice(2), 16);
    else if (/^0[0-7]*$/.test(t)) v = parseInt(t, 8);
    else if (/^[1-9][0-9]*$/.test(t)) v = parseInt(t, 10);
    else if (/^[0-9]+#[0-9A-Za-z@_]+$/.test(t)) {
      const [b, digits] = t.split('#') as [string, string];
      const base = Number(b);
      if (base < 2 || base > 36 || (base <= 36 && !new RegExp(`^[${'0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base)}]+$`, base > 10 ? 'i' : '').test(digits))) return null;
      v = parseInt(digits, base);
    } else return null;
    return Number.isFinite(v) ? v : null;
  };
  const unary = (): number | null => {
    const t = toks[at];
    if (t === '-' || t === '+' || t === '~') {
      at++;
      const v = unary();
      return v === null ? null : t === '-' ? -v : t === '~' ? -v - 1 : v;
    }
    if (t === '(') {
      at++;
      const v = sum();
      if (toks[at] !== ')') return null;
      at++;
      return v;
    }
    if (t === undefined) return null;
    at++;
    return number(t);
  };
  const power = (): number | null => {
    const b = unary();
    if (b === null) return null;
    if (toks[at] !== '**') return b;
    at++;
    const e = power();
    return e === null || e < 0 ? null : b ** e;
  };
  const product = (): number | null => {
    let v = power();
    while (v !== null && (toks[at] === '*' || toks[at] === '/' || toks[at] === '%')) {
      const op = toks[at++];
      const r = power();
      if (r === null || (op !== '*' && r === 0)) return null;
      v = op === '*' ? v * r : op === '/' ? Math.trunc(v / r) : v % r;
    }
    return v;
  };
  const sum = (): number | null => {
    let v = product();
    while (v !== null && (toks[at] === '+' || toks[at] === '-')) {
      const op = toks[at++];
      const r = product();
      if (r === null) return null;
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const v = sum();
  return v !== null && at === toks.length && Number.isSafeInteger(v) ? v : null;
}

/**
 * A word made of literal characters and constant arithmetic expansions (`-$((1))`, `"-0$[1]"`),
 * with each expansion replaced by its value ({@link constantArithmetic}); null when any other
 * expansion or quoting is part of it.
 */
export function expandConstantArithmetic(source: string): string | null {
  let s = source.trim();
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) s = s.slice(1, -1);
  let out = '';
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c !== '$') {
      if (!/[\w+\- ]/.test(c)) return null;
      out += c;
      i++;
      continue;
    }
    let end = -1;
    if (s.startsWith('$((', i)) {
      let depth = 0;
      for (let j = i + 1; j < s.length; j++) {
        if (s[j] === '(') depth++;
        else if (s[j] === ')' && --depth === 0) {
          end = j + 1;
          break;
        }
      }
    } else if (s.startsWith('$[', i)) end = s.indexOf(']', i) + 1;
    if (end <= 0) return null;
    const v = constantArithmetic(s.slice(i, end));
    if (v === null) return null;
    out += String(v);
    i = end;
  }
  return out;
}
