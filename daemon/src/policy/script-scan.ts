import { statSync } from 'node:fs';
import { changeDir, NO_DIRS, unionDirs, UNKNOWN_DIRS, type Dirs } from './paths.js';
import { arithmeticAssignee, binaryOp, evaluatedTestOperands, evaluatedText, goString, heredocBody, isIndirectExpansion, isNil, isPromptExpansion, isQuotedDelimiter, items, nodeType, paramAssignment, parseShell, redirectOp, resolveWord, resolveWords, SourceText, span, subscriptRunsCode, wordValues, type KnownValues, type ShellWord, type ShNode } from './shell-syntax.js';

/**
 * Splits a parsed command line into the simple commands the policy judges (issue 5 "segments"):
 * every command of a list, pipeline, `&&`/`||` chain, newline-separated script, and of compound
 * commands (`if`, loops, `case`, `{ …; }`, `( … )`, function bodies), each with the redirections
 * that apply to it — its own and those of the compound commands around it — and whether its
 * standard input comes from a pipe. Commands inside command substitutions (`$(…)`, backticks),
 * process substitutions (`<(…)`, `>(…)`) and the bodies of unquoted here-documents are commands
 * like any other (issue 8): each is collected and judged, as running in a subshell where the
 * substitution is. Also collects the constructs that are always refused.
 *
 * It also follows the working directory (docs/command-policy.md "The working directory"): each
 * command carries the folders it may run in ({@link Dirs}). A `cd`/`pushd`/`popd` (also as
 * `builtin cd`, `command cd`, `cd -L -- DIR`) moves the folder for what runs after it in the same
 * shell: inside a subshell or pipeline member only there; `cd A && x` runs `x` in A only, while
 * after `cd A; x` or `cd A || x` the `cd` may have failed, so both folders count; the branches of
 * `if`/`case` are all possible. A `cd` to a folder only known at run time (`cd "$X"`, `cd -`,
 * `popd`, `pushd +1`, a relative `cd` while `CDPATH` is set) makes the folder unknown. Loops and
 * function bodies that change directory may run any number of times, later: inside and after
 * them the folder is also unknown, and function bodies are always judged as if called from an
 * unknown folder. `eval`/`trap` strings that `cd` make it unknown after them; a single word that
 * names a directory (bash's `autocd`) may move it too.
 */

/**
 * Why a command line is refused whatever the rules say (issue 5 "Always refused"; since issue 8
 * substitutions and unquoted here-documents are judged instead of refused).
 */
export type RefusalKind =
  | 'background'
  | 'coprocess'
  | 'dangling_operator'
  | 'parse_error'
  | 'empty'
  | 'too_deep'
  | 'control_character'
  | 'environment';

export interface Refusal {
  kind: RefusalKind;
  /** The offending text as written. */
  text: string;
  message: string;
}

/** One redirection of a simple command. */
export interface Redirection {
  /** Operator text: `>`, `>>`, `<`, `<>`, `<&`, `>&`, `>|`, `<<`, `<<-`, `<<<`, `&>`, `&>>`. */
  op: string;
  /** Explicit file descriptor (`2>`), or null. */
  fd: string | null;
  target: ShellWord | null;
  /** It may create or change a file (not `/dev/null`, not a descriptor duplication). */
  writes: boolean;
  /** Body of a quoted here-document (`<<'EOF'`), as written. */
  heredoc?: string;
}

/** A variable assignment (`NAME=value`, `NAME+=value`, `export NAME=value`, `env NAME=value`). */
export interface Assignment {
  name: string;
  value: ShellWord | null;
  /** `NAME+=value`: appends to the current value. */
  append?: boolean;
}

/** Where a simple command sits: inside which function bodies, and in a forked child shell. */
export interface CommandScope {
  /** Names of the function definitions around it, innermost last. */
  functions: readonly string[];
  /** It runs in a subshell: `( … )` or a pipeline member. */
  forked: boolean;
}

/** A simple command: words after assignments, assignments, redirections. */
export interface SimpleCommand {
  /** The statement as written. */
  text: string;
  words: ShellWord[];
  assigns: Assignment[];
  /** Own redirections first, then those of enclosing compound commands. */
  redirects: Redirection[];
  /** Standard input comes from a pipe (`… | this`). */
  pipedInput: boolean;
  /** Absent for commands built outside a script (argv mode): top level, not forked. */
  scope?: CommandScope;
  /** The folders it may run in (see the file comment); absent = none given. */
  dirs?: Dirs;
}

export interface ScanResult {
  commands: SimpleCommand[];
  refusals: Refusal[];
  /**
   * For a lone `&` on the last top-level statement (and nowhere else): the command line without
   * it, to run as a background task instead. Null otherwise.
   */
  backgroundCommand: string | null;
  /** Text of each backgrounded statement without its `&` (for the refusal's actions). */
  backgrounded: string[];
  /** Variables assigned by `${NAME=word}` / `${NAME:=word}` expansions anywhere in the line. */
  paramAssigns: { name: string; text: string }[];
  /**
   * Expansions that run code the parser did not see as a command (review round 5): `${X@P}`, an
   * array subscript holding a command substitution (`(( a[$(cmd)] ))`, `${a[$(cmd)]}`,
   * `a[$(cmd)]=1`) and a quoted subscript bash expands when it evaluates the text (`let 'a[$(cmd)]'`,
   * `[[ $x -eq 'a[$(cmd)]' ]]`, `x='a[$(cmd)]'`). Each needs confirmation.
   */
  runTimeCode: { text: string; why: string }[];
  /** Functions defined anywhere in the line (a name that shadows a builtin or the prompt hook's asks). */
  functionDefs: { name: string; text: string }[];
}

const WRITE_OPS = new Set(['>', '>>', '<>', '>|', '&>', '&>>']);
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

const refusalMessage: Record<RefusalKind, string> = {
  background: 'a lone & starts an untracked job that nobody can attach to or stop; run it with background=true instead (a tracked task)',
  coprocess: 'coproc starts an untracked background job; run it with background=true instead',
  dangling_operator: 'the command ends with an operator (&&, ||, |) that has nothing after it',
  parse_error: 'the command does not parse as Bash',
  empty: 'the command is empty',
  too_deep: 'shells nested inside shells (sh -c "sh -c …") deeper than 4 levels are not judged',
  control_character: 'the command contains a control character that bash or the terminal would act on (NUL ends the command early; Ctrl-C, Ctrl-U, ESC, CR… change what is typed); only tab and newline are allowed',
  environment: 'the environment is not valid',
};

/** Builds a refusal with its standard message. */
export function refusal(kind: RefusalKind, text: string, detail?: string): Refusal {
  return { kind, text, message: detail ? `${refusalMessage[kind]} (${detail})` : refusalMessage[kind] };
}

/**
 * Parses and scans a command line (see the file comment). `dirs` is where it starts (the call's
 * working directory, or where the wrapper running this string runs).
 */
export function scanCommandLine(command: string, dirs: Dirs = NO_DIRS): ScanResult {
  const out: ScanResult = { commands: [], refusals: [], backgroundCommand: null, backgrounded: [], paramAssigns: [], runTimeCode: [], functionDefs: [] };
  if (command.trim() === '') {
    out.refusals.push(refusal('empty', command));
    return out;
  }
  const parsed = parseShell(command);
  if (!parsed.ok) {
    const dangling = /(&&|\|\||\||\|&) must be followed by/.test(parsed.message);
    out.refusals.push(refusal(dangling ? 'dangling_operator' : 'parse_error', command, parsed.message));
    return out;
  }
  const scan = new Scanner(new SourceText(command), out, command.includes('CDPATH') || !!process.env.CDPATH);
  const top = items(parsed.file.Stmts);
  scan.stmts(top, [], false, TOP_SCOPE, dirs);

  // A lone `&`: offer the same command as a tracked background task when it is the last thing.
  const last = top[top.length - 1];
  const bgTop = top.filter((s) => s.Background === true).length;
  const bgAll = out.refusals.filter((r) => r.kind === 'background').length;
  if (last && last.Background === true && bgTop === 1 && bgAll === 1) {
    out.backgroundCommand = stripTrailingAmpersand(scan.src.slice(0, span(last)[1]));
  }
  return out;
}

const TOP_SCOPE: CommandScope = { functions: [], forked: false };

function stripTrailingAmpersand(s: string): string {
  const t = s.trimEnd();
  return (t.endsWith('&') && !t.endsWith('&&') ? t.slice(0, -1) : t).trimEnd();
}

/**
 * Walks the raw syntax tree (every node type of mvdan.cc/sh/v3 that can hold a command or a word),
 * collecting simple commands and refusals. Unknown node types are refused rather than skipped.
 */
/** Where the shell is after a command: when it succeeded (`ok`), and in any case (`any`). */
interface Flow {
  ok: Dirs;
  any: Dirs;
}

const same = (d: Dirs): Flow => ({ ok: d, any: d });

class Scanner {
  constructor(
    readonly src: SourceText,
    private readonly out: ScanResult,
    /** `CDPATH` is set (in the daemon's environment or by this line): a relative `cd` may go anywhere. */
    private readonly cdpath: boolean,
  ) {}

  /** Where the words being visited are expanded: substitutions in them run there, in a subshell. */
  private here: { scope: CommandScope; dirs: Dirs } = { scope: TOP_SCOPE, dirs: NO_DIRS };

  /** Functions defined so far in this line: name → body and the scope it was defined in. */
  private readonly functions = new Map<string, { body: ShNode; scope: CommandScope }>();
  /** Functions whose body is being judged again at a call (no recursion). */
  private readonly calling = new Set<string>();
  /** Literal values variables were given so far in this line (see {@link ShellWord.values}). */
  private readonly vars = new Map<string, string[]>();

  /**
   * Remembers what `NAME=value` (alone, or with export/declare/local/readonly/typeset) gave NAME:
   * its literal text, or the values a word of known variables may take; anything else forgets it.
   */
  private remember(a: ShNode): void {
    if (isNil(a) || isNil(a.Name) || !isNil(a.Index) || !isNil(a.Array)) return;
    const name = goString(a.Name.Value as string);
    if (a.Append === true || a.Naked === true) {
      if (a.Append === true) this.vars.delete(name);
      return;
    }
    if (isNil(a.Value)) {
      this.vars.set(name, ['']);
      return;
    }
    const w = resolveWord(a.Value, this.src);
    const values = w.dynamic ? wordValues(a.Value, this.vars) : [w.text];
    if (values === null) this.vars.delete(name);
    else this.vars.set(name, values);
  }

  stmts(list: ShNode[], outer: ShNode[], piped: boolean, scope: CommandScope, dirs: Dirs): Flow {
    let flow = same(dirs);
    for (const s of list) flow = this.stmt(s, outer, piped, scope, flow.any, false);
    return flow;
  }

  private stmt(s: ShNode, outer: ShNode[], piped: boolean, scope: CommandScope, dirs: Dirs, timed: boolean): Flow {
    if (isNil(s)) return same(dirs);
    if (s.Background === true) {
      const text = this.src.of(s);
      this.out.refusals.push(refusal('background', text));
      this.out.backgrounded.push(stripTrailingAmpersand(text));
    }
    const chain = [...outer, s];
    this.here = { scope, dirs };
    for (const r of items(s.Redirs)) this.redirect(r);
    const flow = this.command(s.Cmd, chain, piped, scope, dirs, timed);
    if (s.Background === true) return same(dirs);
    return s.Negated === true ? same(flow.any) : flow;
  }

  private command(c: ShNode, chain: ShNode[], piped: boolean, scope: CommandScope, dirs: Dirs, timed = false): Flow {
    const type = nodeType(c);
    this.here = { scope, dirs };
    switch (type) {
      case null:
        return same(dirs);
      case 'CallExpr': {
        for (const a of items(c.Assigns)) this.assign(a);
        for (const w of items(c.Args)) this.word(w);
        const cmd = simpleCommand(c, chain, piped, this.src, scope, dirs, timed, this.vars);
        this.out.commands.push(cmd);
        if (items(c.Args).length === 0) for (const a of items(c.Assigns)) this.remember(a);
        this.callFunction(cmd, chain, piped, dirs);
        return this.directoryAfter(cmd, dirs);
      }
      case 'DeclClause':
        for (const a of items(c.Args)) this.assign(a);
        this.out.commands.push(simpleCommand(c, chain, piped, this.src, scope, dirs, false, this.vars));
        for (const a of items(c.Args)) this.remember(a);
        return same(dirs);
      case 'BinaryCmd': {
        const op = binaryOp(c.Op as number);
        const pipe = op === '|' || op === '|&';
        if (pipe) {
          const inner = scope.forked ? scope : { ...scope, forked: true };
          this.stmt(c.X, chain, piped, inner, dirs, false);
          const last = this.stmt(c.Y, chain, true, inner, dirs, false);
          // Pipeline members run in subshells; with `shopt -s lastpipe` the last one may not.
          return same(unionDirs(dirs, last.any));
        }
        const x = this.stmt(c.X, chain, piped, scope, dirs, false);
        if (op === '&&') {
          const y = this.stmt(c.Y, chain, piped, scope, x.ok, false);
          return { ok: y.ok, any: unionDirs(x.any, y.any) };
        }
        const y = this.stmt(c.Y, chain, piped, scope, x.any, false);
        return { ok: unionDirs(x.ok, y.ok), any: unionDirs(x.any, y.any) };
      }
      case 'Block':
        return this.stmts(items(c.Stmts), chain, piped, scope, dirs);
      case 'Subshell':
        this.stmts(items(c.Stmts), chain, piped, scope.forked ? scope : { ...scope, forked: true }, dirs);
        return same(dirs);
      case 'IfClause': {
        const cond = this.stmts(items(c.Cond), chain, piped, scope, dirs);
        const then = this.stmts(items(c.Then), chain, piped, scope, cond.ok);
        const other = this.command(c.Else, chain, piped, scope, cond.any);
        return { ok: unionDirs(then.ok, other.ok), any: unionDirs(then.any, other.any) };
      }
      case 'WhileClause': {
        const d = this.changesDirectory(c) ? unionDirs(dirs, UNKNOWN_DIRS) : dirs;
        const cond = this.stmts(items(c.Cond), chain, piped, scope, d);
        const body = this.stmts(items(c.Do), chain, piped, scope, cond.ok);
        return same(unionDirs(unionDirs(d, cond.any), body.any));
      }
      case 'ForClause': {
        const loop = c.Loop;
        if (nodeType(loop) === 'WordIter') {
          for (const w of items(loop.Items)) this.word(w);
          // `for d in /etc /usr; do rm -rf "$d"; done`: the loop variable takes each listed value.
          const listed = items(loop.Items).flatMap((w: ShNode) => resolveWords(w, this.src));
          const name = goString(loop.Name.Value as string);
          // `for NAME in …` / `select NAME in …` assigns NAME each word.
          this.out.paramAssigns.push({ name, text: `${c.Select === true ? 'select' : 'for'} ${name} in …` });
          if (listed.length > 0 && listed.every((w: ShellWord) => !w.dynamic)) this.vars.set(name, listed.map((w: ShellWord) => w.text));
          else this.vars.delete(name);
        }
        else if (nodeType(loop) === 'CStyleLoop') for (const x of [loop.Init, loop.Cond, loop.Post]) this.arith(x);
        const d = this.changesDirectory(c) ? unionDirs(dirs, UNKNOWN_DIRS) : dirs;
        const body = this.stmts(items(c.Do), chain, piped, scope, d);
        return same(unionDirs(d, body.any));
      }
      case 'CaseClause': {
        this.word(c.Word);
        let any = dirs;
        for (const item of items(c.Items)) {
          for (const w of items(item.Patterns)) this.word(w);
          any = unionDirs(any, this.stmts(items(item.Stmts), chain, piped, scope, dirs).any);
        }
        return same(any);
      }
      case 'FuncDecl': {
        // The body runs when called — later, from wherever the shell is then (and again where a
        // call in this line runs it: callFunction).
        const changes = this.changesDirectory(c.Body);
        const fname = isNil(c.Name) ? '' : goString(c.Name.Value as string);
        if (fname !== '') this.functions.set(fname, { body: c.Body, scope });
        this.out.functionDefs.push({ name: fname, text: this.src.of(c) });
        this.stmt(c.Body, chain, piped, { ...scope, functions: [...scope.functions, fname] }, unionDirs(dirs, UNKNOWN_DIRS), false);
        return same(changes ? unionDirs(dirs, UNKNOWN_DIRS) : dirs);
      }
      case 'ArithmCmd':
        this.arith(c.X);
        return same(dirs);
      case 'TestClause':
        this.test(c.X);
        return same(dirs);
      case 'LetClause':
        for (const x of items(c.Exprs)) this.arith(x);
        return same(dirs);
      case 'TimeClause':
        return this.stmt(c.Stmt, chain, piped, scope, dirs, true);
      case 'CoprocClause':
        this.out.refusals.push(refusal('coprocess', this.src.of(c)));
        this.stmt(c.Stmt, chain, piped, scope, dirs, false);
        return same(dirs);
      default:
        this.out.refusals.push(refusal('parse_error', this.src.of(c), `unsupported construct ${type}`));
        return same(dirs);
    }
  }

  /**
   * A call of a function defined earlier in this line (`f(){ rm -rf usr; }; cd / && f`): its body
   * is judged again where the call runs. Its refusals were reported at the definition already.
   */
  private callFunction(cmd: SimpleCommand, chain: ShNode[], piped: boolean, dirs: Dirs): void {
    const head = cmd.words[0];
    if (!head || head.dynamic) return;
    const fn = this.functions.get(head.text);
    if (!fn || this.calling.has(head.text) || this.calling.size >= 4) return;
    const refusals = this.out.refusals.length;
    this.calling.add(head.text);
    try {
      this.stmt(fn.body, chain, piped, { ...fn.scope, functions: [...fn.scope.functions, head.text] }, dirs, false);
    } finally {
      this.calling.delete(head.text);
      this.out.refusals.length = refusals;
    }
  }

  /** Where the shell is after this simple command (a `cd` and its kin move it). */
  private directoryAfter(cmd: SimpleCommand, dirs: Dirs): Flow {
    const change = directoryChange(cmd, this.cdpath);
    if (change === null) return same(dirs);
    if (change.kind === 'unknown') return change.maybe ? same(unionDirs(dirs, UNKNOWN_DIRS)) : { ok: UNKNOWN_DIRS, any: unionDirs(dirs, UNKNOWN_DIRS) };
    const to = changeDir(dirs, change.target);
    return change.maybe ? same(unionDirs(dirs, to)) : { ok: to, any: unionDirs(dirs, to) };
  }

  /** Could this loop or function change the directory (judged from its text, erring on yes)? */
  private changesDirectory(node: ShNode): boolean {
    return DIRECTORY_WORDS.test(this.src.of(node));
  }

  private redirect(r: ShNode): void {
    const op = redirectOp(r.Op as number);
    // An unquoted here-document expands its body: the commands in it are judged (issue 8).
    if ((op === '<<' || op === '<<-') && !isQuotedDelimiter(r.Word)) this.word(r.Hdoc);
    this.word(r.Word);
  }

  /**
   * The statements of a command or process substitution: judged like the rest of the line, as a
   * subshell started where the word is expanded (it cannot change that shell's folder or end it).
   */
  private substitution(stmts: ShNode): void {
    const here = this.here;
    this.stmts(items(stmts), [], false, here.scope.forked ? here.scope : { ...here.scope, forked: true }, here.dirs);
    this.here = here;
  }

  private assign(a: ShNode): void {
    if (isNil(a)) return;
    this.subscript(a.Index);
    this.arith(a.Index);
    this.word(a.Value);
    // `x='a[$(cmd)]'`: any later arithmetic use of x (`(( x ))`, `declare -i x`) runs cmd.
    // A real substitution there runs now (judged); only code written literally is left for later.
    this.evaluated(a.Value, 'a value whose array subscript runs a command when the variable is used in arithmetic', '_');
    if (!isNil(a.Array)) {
      for (const e of items(a.Array.Elems)) {
        this.subscript(e.Index);
        this.arith(e.Index);
        this.word(e.Value);
      }
    }
  }

  /** An array subscript holding a command substitution or code in quotes: flagged (see {@link ScanResult.runTimeCode}). */
  private subscript(index: ShNode): void {
    if (!isNil(index) && arithRunsCode(index, this.src)) this.out.runTimeCode.push({ text: this.src.of(index), why: 'an array subscript that runs a command when bash evaluates it (its output is expanded again)' });
  }

  /** A word bash evaluates again as a name or arithmetic: a quoted `a[$(cmd)]` in it runs cmd. */
  private evaluated(w: ShNode, why: string, substitution = '$('): void {
    if (!isNil(w) && nodeType(w) === 'Word' && subscriptRunsCode(evaluatedText(w, substitution))) this.out.runTimeCode.push({ text: this.src.of(w), why });
  }

  private word(w: ShNode): void {
    if (isNil(w)) return;
    for (const p of items(w.Parts)) this.part(p);
  }

  private part(p: ShNode): void {
    switch (nodeType(p)) {
      case 'DblQuoted':
        for (const q of items(p.Parts)) this.part(q);
        return;
      case 'CmdSubst':
      case 'ProcSubst':
        this.substitution(p.Stmts);
        return;
      case 'ArithmExp':
        this.arith(p.X);
        return;
      case 'ParamExp': {
        const assigned = paramAssignment(p);
        if (assigned !== null) this.out.paramAssigns.push({ name: assigned, text: this.src.of(p) });
        if (isIndirectExpansion(p)) this.out.runTimeCode.push({ text: this.src.of(p), why: 'indirect expansion, which evaluates the name it holds (an array subscript in it runs a command)' });
        if (isPromptExpansion(p)) this.out.runTimeCode.push({ text: this.src.of(p), why: 'prompt expansion (@P) runs the command substitutions in the value' });
        this.subscript(p.Index);
        this.arith(p.Index);
        if (!isNil(p.Slice)) {
          this.arith(p.Slice.Offset);
          this.arith(p.Slice.Length);
        }
        if (!isNil(p.Repl)) {
          this.word(p.Repl.Orig);
          this.word(p.Repl.With);
        }
        if (!isNil(p.Exp)) this.word(p.Exp.Word);
        return;
      }
      case 'BraceExp':
        for (const w of items(p.Elems)) this.word(w);
        return;
      default:
        return; // Lit, SglQuoted, ExtGlob: no commands inside
    }
  }

  private arith(x: ShNode): void {
    const assigned = arithmeticAssignee(x);
    if (assigned !== null) this.out.paramAssigns.push({ name: assigned, text: this.src.of(x) });
    switch (nodeType(x)) {
      case 'Word':
        this.evaluated(x, 'arithmetic whose quoted array subscript runs a command');
        this.word(x);
        return;
      case 'BinaryArithm':
        this.arith(x.X);
        this.arith(x.Y);
        return;
      case 'UnaryArithm':
      case 'ParenArithm':
        this.arith(x.X);
        return;
      default:
        return;
    }
  }

  private test(x: ShNode): void {
    for (const w of evaluatedTestOperands(x)) this.evaluated(w, 'a test operand bash evaluates, whose array subscript runs a command');
    switch (nodeType(x)) {
      case 'Word':
        this.word(x);
        return;
      case 'BinaryTest':
        this.test(x.X);
        this.test(x.Y);
        return;
      case 'UnaryTest':
      case 'ParenTest':
        this.test(x.X);
        return;
      default:
        return;
    }
  }
}

/**
 * An arithmetic expression (an array subscript) holding a command or process substitution, or
 * code in a quoted string, anywhere inside — also in a nested subscript.
 */
function arithRunsCode(x: ShNode, src: SourceText): boolean {
  switch (nodeType(x)) {
    case 'Word':
      return items(x.Parts).some((p: ShNode) => {
        const t = nodeType(p);
        if (t === 'CmdSubst' || t === 'ProcSubst') return true;
        if (t === 'DblQuoted') return items(p.Parts).some((q: ShNode) => nodeType(q) === 'CmdSubst' || (nodeType(q) === 'Lit' && /\$\(|`|\$\{/.test(goString(q.Value as string))));
        if (t === 'SglQuoted') return /\$\(|`|\$\{/.test(goString(p.Value as string));
        if (t === 'ParamExp') return !isNil(p.Index) && arithRunsCode(p.Index, src);
        return false;
      });
    case 'BinaryArithm':
      return arithRunsCode(x.X, src) || arithRunsCode(x.Y, src);
    case 'UnaryArithm':
    case 'ParenArithm':
      return arithRunsCode(x.X, src);
    default:
      return false;
  }
}

/** A word as the policy judges it, with the values known variables give it (see {@link ShellWord.values}). */
function judgedWords(w: ShNode, src: SourceText, vars: KnownValues): ShellWord[] {
  const out = resolveWords(w, src);
  if (out.length !== 1 || !out[0]!.dynamic) return out;
  const values = wordValues(w, vars);
  return values === null ? out : [{ ...out[0]!, values }];
}

function simpleCommand(cmd: ShNode, chain: ShNode[], piped: boolean, src: SourceText, scope: CommandScope, dirs: Dirs, timed: boolean, vars: KnownValues): SimpleCommand {
  const own = chain[chain.length - 1]!;
  const words: ShellWord[] = [];
  const assigns: Assignment[] = [];
  if (nodeType(cmd) === 'CallExpr') {
    for (const a of items(cmd.Assigns)) assigns.push(assignment(a, src));
    for (const w of items(cmd.Args)) words.push(...judgedWords(w, src, vars));
    // `time -- cmd`, `time -p -- cmd`: bash's time keyword takes `--` before the command.
    if (timed && words[0] && !words[0].dynamic && words[0].text === '--' && words[0].source === '--') words.shift();
  } else {
    // DeclClause: export/declare/local/readonly/typeset/nameref — judged as a command named so.
    const variant = cmd.Variant as ShNode;
    words.push({ text: goString(variant.Value as string), dynamic: false, glob: false, source: src.of(variant) });
    for (const a of items(cmd.Args)) {
      if (a.Naked === true) {
        if (!isNil(a.Name)) words.push({ text: goString(a.Name.Value as string), dynamic: false, glob: false, source: src.of(a.Name) });
        else if (!isNil(a.Value)) words.push(resolveWord(a.Value, src));
        continue;
      }
      const as = assignment(a, src);
      assigns.push(as);
      words.push({ text: `${as.name}=${as.value?.text ?? ''}`, dynamic: as.value?.dynamic ?? false, glob: false, source: src.of(a) });
    }
  }
  const redirects: Redirection[] = [];
  for (let i = chain.length - 1; i >= 0; i--) for (const r of items(chain[i]!.Redirs)) redirects.push(redirection(r, src, vars));
  return { text: src.of(own), words, assigns, redirects, pipedInput: piped, scope, dirs };
}

// ---- directory changes ---------------------------------------------------------------------------

/** Words that can move the shell (`cd`, `pushd`, `popd`, a lone `..`, `~`, `/`, `dir/` under autocd). */
const DIRECTORY_WORDS = /(?:^|[\s;&|(){}!'"`])(?:cd|pushd|popd|\.\.\/?|~[^\s;&|()]*|[^\s;&|()]*\/)(?=$|[\s;&|(){}'"`])/;
const CD_OPTIONS = /^-[LPe@]+$/;

type DirectoryChange = { kind: 'to'; target: string; maybe: boolean } | { kind: 'unknown'; maybe: boolean };

/**
 * How a simple command moves the shell: `cd DIR` (also `builtin cd`, `command cd`, with `-L`, `-P`,
 * `-e`, `-@`, `--`), `pushd DIR`, `popd`, an `eval`/`trap` string that contains a `cd`, or a single
 * word naming a folder (`..`, `~`, `dir/`: bash's `autocd`, when the user's shell enables it).
 * Null when it does not.
 */
function directoryChange(cmd: SimpleCommand, cdpath: boolean): DirectoryChange | null {
  const w = cmd.words;
  let i = 0;
  for (;;) {
    const t = w[i];
    if (!t || t.dynamic) return null;
    if (t.text === 'builtin') {
      i++;
      if (w[i]?.text === '--') i++;
    } else if (t.text === 'command') {
      i++;
      while (w[i] && !w[i]!.dynamic && /^-[pvV]+$/.test(w[i]!.text)) {
        if (/[vV]/.test(w[i]!.text)) return null;
        i++;
      }
      if (w[i]?.text === '--') i++;
    } else break;
  }
  const name = w[i]!.text;
  const args = w.slice(i + 1);
  if (name === 'cd' || name === 'pushd') {
    let k = 0;
    let noChange = false;
    for (; k < args.length; k++) {
      const a = args[k]!;
      if (a.dynamic) break;
      if (a.text === '--') {
        k++;
        break;
      }
      if (name === 'pushd' && a.text === '-n') noChange = true;
      else if (!CD_OPTIONS.test(a.text)) break;
    }
    if (noChange) return null;
    const target = args[k];
    if (!target) {
      if (name === 'pushd') return { kind: 'unknown', maybe: false }; // swaps the top two
      return cmd.assigns.some((a) => a.name === 'HOME') ? { kind: 'unknown', maybe: false } : { kind: 'to', target: '~', maybe: false };
    }
    if (target.dynamic || target.glob || target.text === '-' || (name === 'pushd' && /^[+-]\d+$/.test(target.text))) return { kind: 'unknown', maybe: false };
    if (cdpath && !target.text.startsWith('/') && !target.text.startsWith('~') && !/^\.\.?(\/|$)/.test(target.text)) return { kind: 'unknown', maybe: false };
    return { kind: 'to', target: target.text, maybe: false };
  }
  if (name === 'popd') return args.some((a) => a.text === '-n') ? null : { kind: 'unknown', maybe: false };
  if (name === 'eval' || name === 'trap') return DIRECTORY_WORDS.test(cmd.text) ? { kind: 'unknown', maybe: true } : null;
  if (i === 0 && w.length === 1 && cmd.assigns.length === 0 && autocdDirectory(name, cmd.dirs)) return { kind: 'to', target: name, maybe: true };
  return null;
}

/** Does a lone command word name a folder (`..`, `~`, `/tmp`, `sub/`)? Checked on disk for `a/b`. */
function autocdDirectory(name: string, dirs: Dirs | undefined): boolean {
  if (name === '..' || name === '/' || name.startsWith('~') || (name.endsWith('/') && name !== '/')) return true;
  if (!name.includes('/')) return false;
  const base = name.startsWith('/') ? [''] : (dirs?.known ?? []);
  for (const d of base) {
    try {
      if (statSync(d === '' ? name : `${d}/${name}`).isDirectory()) return true;
    } catch {
      // not there
    }
  }
  return false;
}

function assignment(a: ShNode, src: SourceText): Assignment {
  const name = isNil(a.Name) ? '' : goString(a.Name.Value as string);
  const append = a.Append === true;
  if (!isNil(a.Array)) {
    const text = src.of(a.Array);
    return { name, value: { text, dynamic: true, glob: false, source: text }, append };
  }
  return { name, value: isNil(a.Value) ? null : resolveWord(a.Value, src), append };
}

function redirection(r: ShNode, src: SourceText, vars: KnownValues): Redirection {
  const op = redirectOp(r.Op as number);
  const values = isNil(r.Word) ? null : wordValues(r.Word, vars);
  const target = isNil(r.Word) ? null : { ...resolveWord(r.Word, src), ...(values ? { values } : {}) };
  let writes = WRITE_OPS.has(op);
  if (op === '>&') writes = target !== null && !/^(\d+-?|-)$/.test(target.text);
  if (writes && target && !target.dynamic && HARMLESS_TARGETS.has(target.text)) writes = false;
  const out: Redirection = { op, fd: isNil(r.N) ? null : goString(r.N.Value as string), target, writes };
  if ((op === '<<' || op === '<<-') && !isNil(r.Hdoc)) out.heredoc = heredocBody(r, op, target?.text ?? '', src);
  return out;
}
