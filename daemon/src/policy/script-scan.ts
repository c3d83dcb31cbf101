import { binaryOp, goString, isNil, items, nodeType, paramAssignment, parseShell, redirectOp, resolveWord, SourceText, span, type ShellWord, type ShNode } from './shell-syntax.js';

/**
 * Splits a parsed command line into the simple commands the policy judges (issue 5 "segments"):
 * every command of a list, pipeline, `&&`/`||` chain, newline-separated script, and of compound
 * commands (`if`, loops, `case`, `{ …; }`, `( … )`, function bodies), each with the redirections
 * that apply to it — its own and those of the compound commands around it — and whether its
 * standard input comes from a pipe. Also collects the constructs that are always refused.
 */

/** Why a command line is refused whatever the rules say (issue 5 "Always refused"). */
export type RefusalKind =
  | 'command_substitution'
  | 'backticks'
  | 'process_substitution'
  | 'background'
  | 'coprocess'
  | 'unquoted_heredoc'
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
}

const WRITE_OPS = new Set(['>', '>>', '<>', '>|', '&>', '&>>']);
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

const refusalMessage: Record<RefusalKind, string> = {
  command_substitution: 'command substitution $(…) hides a command inside an argument; run the inner command first and pass its output explicitly',
  backticks: 'backtick command substitution hides a command inside an argument; run the inner command first and pass its output explicitly',
  process_substitution: 'process substitution <(…)/>(…) hides a command inside an argument; write the inner output to a file first',
  background: 'a lone & starts an untracked job that nobody can attach to or stop; run it with background=true instead (a tracked task)',
  coprocess: 'coproc starts an untracked background job; run it with background=true instead',
  unquoted_heredoc: "an unquoted here-document expands $(…) and variables in its body; quote the delimiter (<<'EOF')",
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

/** Parses and scans a command line (see the file comment). */
export function scanCommandLine(command: string): ScanResult {
  const out: ScanResult = { commands: [], refusals: [], backgroundCommand: null, backgrounded: [], paramAssigns: [] };
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
  const scan = new Scanner(new SourceText(command), out);
  const top = items(parsed.file.Stmts);
  scan.stmts(top, [], false, TOP_SCOPE);

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
class Scanner {
  constructor(
    readonly src: SourceText,
    private readonly out: ScanResult,
  ) {}

  stmts(list: ShNode[], outer: ShNode[], piped: boolean, scope: CommandScope): void {
    for (const s of list) this.stmt(s, outer, piped, scope);
  }

  private stmt(s: ShNode, outer: ShNode[], piped: boolean, scope: CommandScope): void {
    if (isNil(s)) return;
    if (s.Background === true) {
      const text = this.src.of(s);
      this.out.refusals.push(refusal('background', text));
      this.out.backgrounded.push(stripTrailingAmpersand(text));
    }
    const chain = [...outer, s];
    for (const r of items(s.Redirs)) this.redirect(r);
    this.command(s.Cmd, chain, piped, scope);
  }

  private command(c: ShNode, chain: ShNode[], piped: boolean, scope: CommandScope): void {
    const type = nodeType(c);
    switch (type) {
      case null:
        return;
      case 'CallExpr':
        for (const a of items(c.Assigns)) this.assign(a);
        for (const w of items(c.Args)) this.word(w);
        this.out.commands.push(simpleCommand(c, chain, piped, this.src, scope));
        return;
      case 'DeclClause':
        for (const a of items(c.Args)) this.assign(a);
        this.out.commands.push(simpleCommand(c, chain, piped, this.src, scope));
        return;
      case 'BinaryCmd': {
        const op = binaryOp(c.Op as number);
        const pipe = op === '|' || op === '|&';
        const inner = pipe && !scope.forked ? { ...scope, forked: true } : scope;
        this.stmt(c.X, chain, piped, inner);
        this.stmt(c.Y, chain, piped || pipe, inner);
        return;
      }
      case 'Block':
        this.stmts(items(c.Stmts), chain, piped, scope);
        return;
      case 'Subshell':
        this.stmts(items(c.Stmts), chain, piped, scope.forked ? scope : { ...scope, forked: true });
        return;
      case 'IfClause':
        this.stmts(items(c.Cond), chain, piped, scope);
        this.stmts(items(c.Then), chain, piped, scope);
        this.command(c.Else, chain, piped, scope);
        return;
      case 'WhileClause':
        this.stmts(items(c.Cond), chain, piped, scope);
        this.stmts(items(c.Do), chain, piped, scope);
        return;
      case 'ForClause': {
        const loop = c.Loop;
        if (nodeType(loop) === 'WordIter') for (const w of items(loop.Items)) this.word(w);
        else if (nodeType(loop) === 'CStyleLoop') for (const x of [loop.Init, loop.Cond, loop.Post]) this.arith(x);
        this.stmts(items(c.Do), chain, piped, scope);
        return;
      }
      case 'CaseClause':
        this.word(c.Word);
        for (const item of items(c.Items)) {
          for (const w of items(item.Patterns)) this.word(w);
          this.stmts(items(item.Stmts), chain, piped, scope);
        }
        return;
      case 'FuncDecl':
        this.stmt(c.Body, chain, piped, { ...scope, functions: [...scope.functions, isNil(c.Name) ? '' : goString(c.Name.Value as string)] });
        return;
      case 'ArithmCmd':
        this.arith(c.X);
        return;
      case 'TestClause':
        this.test(c.X);
        return;
      case 'LetClause':
        for (const x of items(c.Exprs)) this.arith(x);
        return;
      case 'TimeClause':
        this.stmt(c.Stmt, chain, piped, scope);
        return;
      case 'CoprocClause':
        this.out.refusals.push(refusal('coprocess', this.src.of(c)));
        this.stmt(c.Stmt, chain, piped, scope);
        return;
      default:
        this.out.refusals.push(refusal('parse_error', this.src.of(c), `unsupported construct ${type}`));
    }
  }

  private redirect(r: ShNode): void {
    const op = redirectOp(r.Op as number);
    if ((op === '<<' || op === '<<-') && !isQuotedDelimiter(r.Word)) this.out.refusals.push(refusal('unquoted_heredoc', this.src.of(r)));
    this.word(r.Word);
  }

  private assign(a: ShNode): void {
    if (isNil(a)) return;
    this.arith(a.Index);
    this.word(a.Value);
    if (!isNil(a.Array)) {
      for (const e of items(a.Array.Elems)) {
        this.arith(e.Index);
        this.word(e.Value);
      }
    }
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
        this.out.refusals.push(refusal(p.Backquotes ? 'backticks' : 'command_substitution', this.src.of(p)));
        return;
      case 'ProcSubst':
        this.out.refusals.push(refusal('process_substitution', this.src.of(p)));
        return;
      case 'ArithmExp':
        this.arith(p.X);
        return;
      case 'ParamExp': {
        const assigned = paramAssignment(p);
        if (assigned !== null) this.out.paramAssigns.push({ name: assigned, text: this.src.of(p) });
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
    switch (nodeType(x)) {
      case 'Word':
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

/** A here-document delimiter with any quoting (`'EOF'`, `"EOF"`, `\EOF`, `E"OF"`) has a literal body. */
function isQuotedDelimiter(word: ShNode): boolean {
  return items(word.Parts).some((p) => nodeType(p) !== 'Lit' || goString(p.Value as string).includes('\\'));
}

function simpleCommand(cmd: ShNode, chain: ShNode[], piped: boolean, src: SourceText, scope: CommandScope): SimpleCommand {
  const own = chain[chain.length - 1]!;
  const words: ShellWord[] = [];
  const assigns: Assignment[] = [];
  if (nodeType(cmd) === 'CallExpr') {
    for (const a of items(cmd.Assigns)) assigns.push(assignment(a, src));
    for (const w of items(cmd.Args)) words.push(resolveWord(w, src));
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
  for (let i = chain.length - 1; i >= 0; i--) for (const r of items(chain[i]!.Redirs)) redirects.push(redirection(r, src));
  return { text: src.of(own), words, assigns, redirects, pipedInput: piped, scope };
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

function redirection(r: ShNode, src: SourceText): Redirection {
  const op = redirectOp(r.Op as number);
  const target = isNil(r.Word) ? null : resolveWord(r.Word, src);
  let writes = WRITE_OPS.has(op);
  if (op === '>&') writes = target !== null && !/^(\d+-?|-)$/.test(target.text);
  if (writes && target && !target.dynamic && HARMLESS_TARGETS.has(target.text)) writes = false;
  const out: Redirection = { op, fd: isNil(r.N) ? null : goString(r.N.Value as string), target, writes };
  if ((op === '<<' || op === '<<-') && !isNil(r.Hdoc)) out.heredoc = src.of(r.Hdoc);
  return out;
}
