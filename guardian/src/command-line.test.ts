import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ansiCQuote, commandLine, typedLineFromEcho } from './command-line.js';

/** What bash makes of the ANSI-C quoted string (printed with printf %s). */
function bashValue(quoted: string): Buffer {
  return execFileSync('bash', ['--norc', '--noprofile', '-c', `printf %s ${quoted}`]);
}

describe('command line typing', () => {
  it('types plain commands literally and everything else through eval $\'…\'', () => {
    const ev = (q: string): string => `__hf_c=${q}; eval "$__hf_c"`;
    assert.equal(commandLine('echo hi'), 'echo hi');
    assert.equal(commandLine('cd /tmp'), 'cd /tmp');
    assert.equal(commandLine('export X=1'), 'export X=1');
    assert.equal(commandLine('echo "a'), ev(`$'echo "a'`));
    assert.equal(commandLine('for i in 1 2'), ev(`$'for i in 1 2'`));
    assert.equal(commandLine('a\nb'), ev(`$'a\\nb'`));
    assert.equal(commandLine("it's"), ev(`$'it\\'s'`));
    assert.equal(commandLine('echo 名'), ev(`$'echo \\xe5\\x90\\x8d'`));
  });

  it('keeps the command as sent for history when the daemon wraps it (issue 9, item 8)', () => {
    assert.equal(commandLine("( cd '/w' && ls\n)", undefined, 'ls'), `__hf_c=$'ls'; eval $'( cd \\'/w\\' && ls\\n)'`);
    const files: string[] = [];
    const spill = (t: string): string => (files.push(t), `/s/${files.length}.sh`);
    const long = `echo ${'x'.repeat(5000)}`;
    assert.equal(commandLine(long, spill), `__hf_c="$(<$'/s/1.sh')"; eval "$__hf_c"`);
    assert.equal(commandLine(`( cd /w && ${long}\n)`, spill, long), `__hf_c="$(<$'/s/3.sh')"; eval "$(<$'/s/2.sh')"`);
    assert.deepEqual(files.slice(1), [`( cd /w && ${long}\n)`, long]);
  });

  it('produces printable ASCII only', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        assert.match(commandLine(s.length > 0 ? s : 'x'), /^[\x20-\x7e]*$/);
      }),
    );
  });

  it('round-trips any text through bash ANSI-C quoting (property, real bash)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const text = s.replace(/\0/g, ''); // bash strings cannot hold NUL
        assert.deepEqual(bashValue(ansiCQuote(text)), Buffer.from(text, 'utf8'));
      }),
      { numRuns: 60 },
    );
  });

  it('recovers a typed line from its echo', () => {
    assert.equal(typedLineFromEcho(Buffer.from('ls -la\r\n\x1b[?2004l\r')), 'ls -la');
    assert.equal(typedLineFromEcho(Buffer.from('ech\x08\x1b[Ko hi\r\n')), 'eco hi');
  });
});
