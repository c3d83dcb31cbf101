import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guessFormats, parseDiagnostics } from './index.js';

// Samples are real outputs (tsc 5.9, gcc 12, cargo 1.8x, pytest 9, node 20) or the tools' documented formats.
const TSC = `a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.
a.ts(2,12): error TS7006: Parameter 'a' implicitly has an 'any' type.`;
const TSC_PRETTY = `src/a.ts:1:7 - error TS2322: Type 'string' is not assignable to type 'number'.

1 const x: number = "a";
        ~

Found 1 error in src/a.ts:1`;
const ESLINT = `
/home/u/p/src/a.js
   1:7   error    'x' is assigned a value but never used  no-unused-vars
  2:10  warning  Unexpected console statement            no-console

✖ 2 problems (1 error, 1 warning)
`;
const GCC = `a.c: In function ‘main’:
a.c:1:21: warning: initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast [-Wint-conversion]
    1 | int main(){ int x = "a"; undefined_fn(); return 0 }
      |                     ^~~
a.c:1:50: error: expected ‘;’ before ‘}’ token
lib.h:3: note: declared here`;
const GO = `# example.com/m
./main.go:5:2: undefined: x
./main.go:6:9: cannot use "a" (untyped string constant) as int value in return statement
--- FAIL: TestAdd (0.00s)
    main_test.go:9: add(1, 2) = -1, want 3
FAIL`;
const CARGO = `   Compiling rs v0.1.0 (/tmp/dg/rs)
error[E0308]: mismatched types
 --> src/main.rs:1:26
  |
1 | fn main() { let x: i32 = "a"; let y = 1; }
  |                    ---   ^^^ expected \`i32\`, found \`&str\`
warning: unused variable: \`y\`
 --> src/main.rs:1:35
error: could not compile \`rs\` (bin "rs") due to 1 previous error`;
const PYTEST = `=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(1,2) == 3
E       assert -1 == 3
E        +  where -1 = add(1, 2)

test_x.py:5: AssertionError
___________________________________ test_err ___________________________________

    def test_err():
>       raise ValueError("boom")
E       ValueError: boom

test_x.py:8: ValueError
=========================== short test summary info ============================
FAILED test_x.py::test_add - assert -1 == 3
FAILED test_x.py::test_err - ValueError: boom
FAILED other_test.py::test_setup - fixture 'db' not found
2 failed in 0.48s`;
const NODE_TAP = `TAP version 13
# Subtest: adds
not ok 1 - adds
  ---
  duration_ms: 1.340102
  location: '/tmp/dg/x.test.mjs:3:1'
  failureType: 'testCodeFailure'
  error: '2 == 3'
  code: 'ERR_ASSERTION'
  ...
# Subtest: ok
ok 2 - ok
  ---
  duration_ms: 0.22636
  ...`;
const NODE_SPEC = `✔ ok (0.16027ms)
ℹ tests 2

✖ failing tests:

test at x.test.mjs:3:1
✖ adds (1.28482ms)
  AssertionError [ERR_ASSERTION]: 2 == 3
      at TestContext.<anonymous> (file:///tmp/dg/x.test.mjs:3:29)`;

const pick = (text: string, f: Parameters<typeof parseDiagnostics>[1]) => parseDiagnostics(text, f).map((d) => [d.file, d.line, d.column, d.severity, d.message, d.code ?? null]);

describe('diagnostics parsers (issue 5)', () => {
  it('tsc, plain and pretty', () => {
    assert.deepEqual(pick(TSC, ['tsc']), [
      ['a.ts', 1, 7, 'error', "Type 'string' is not assignable to type 'number'.", 'TS2322'],
      ['a.ts', 2, 12, 'error', "Parameter 'a' implicitly has an 'any' type.", 'TS7006'],
    ]);
    assert.deepEqual(pick(TSC_PRETTY, ['tsc']), [['src/a.ts', 1, 7, 'error', "Type 'string' is not assignable to type 'number'.", 'TS2322']]);
  });
  it('eslint stylish', () => {
    assert.deepEqual(pick(ESLINT, ['eslint']), [
      ['/home/u/p/src/a.js', 1, 7, 'error', "'x' is assigned a value but never used", 'no-unused-vars'],
      ['/home/u/p/src/a.js', 2, 10, 'warning', 'Unexpected console statement', 'no-console'],
    ]);
  });
  it('gcc/clang', () => {
    assert.deepEqual(pick(GCC, ['gcc']), [
      ['a.c', 1, 50, 'error', 'expected ‘;’ before ‘}’ token', null],
      ['a.c', 1, 21, 'warning', 'initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast', '-Wint-conversion'],
      ['lib.h', 3, null, 'note', 'declared here', null],
    ]);
  });
  it('go build and go test', () => {
    assert.deepEqual(pick(GO, ['go']), [
      ['main.go', 5, 2, 'error', 'undefined: x', null],
      ['main.go', 6, 9, 'error', 'cannot use "a" (untyped string constant) as int value in return statement', null],
      ['main_test.go', 9, null, 'error', 'add(1, 2) = -1, want 3', null],
    ]);
  });
  it('cargo/rustc', () => {
    assert.deepEqual(pick(CARGO, ['cargo']), [
      ['src/main.rs', 1, 26, 'error', 'mismatched types', 'E0308'],
      ['src/main.rs', 1, 35, 'warning', 'unused variable: `y`', null],
    ]);
  });
  it('pytest', () => {
    assert.deepEqual(pick(PYTEST, ['pytest']), [
      ['test_x.py', 5, null, 'error', 'assert -1 == 3', 'AssertionError'],
      ['test_x.py', 8, null, 'error', 'ValueError: boom', 'ValueError'],
      ['other_test.py', null, null, 'error', "test_setup - fixture 'db' not found", null],
    ]);
  });
  it('node:test, TAP and spec reporters', () => {
    assert.deepEqual(pick(NODE_TAP, ['node-test']), [['/tmp/dg/x.test.mjs', 3, 1, 'error', 'adds: 2 == 3', null]]);
    assert.deepEqual(pick(NODE_SPEC, ['node-test']), [['x.test.mjs', 3, 1, 'error', 'adds: AssertionError [ERR_ASSERTION]: 2 == 3', null]]);
  });
  it('auto runs every parser without cross-talk', () => {
    const all = parseDiagnostics([TSC, GCC, GO, CARGO, PYTEST, NODE_TAP].join('\n'), 'auto');
    assert.deepEqual(
      [...new Set(all.map((d) => d.format))].sort(),
      ['cargo', 'gcc', 'go', 'node-test', 'pytest', 'tsc'],
    );
    assert.equal(all.filter((d) => d.format === 'gcc' && d.file.endsWith('.rs')).length, 0);
  });
  it('guesses formats from commands', () => {
    assert.deepEqual(guessFormats('tsc -b'), ['tsc']);
    assert.deepEqual(guessFormats('npm run lint', 'eslint . --ext .ts'), ['eslint']);
    assert.deepEqual(guessFormats('cargo test'), ['cargo']);
    assert.deepEqual(guessFormats('python3 -m pytest -q'), ['pytest']);
    assert.deepEqual(guessFormats('node --test dist/'), ['node-test']);
    assert.equal(guessFormats('./build.sh'), 'auto');
  });
});
