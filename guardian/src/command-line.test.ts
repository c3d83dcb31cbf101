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
    assert.equal(commandLine('echo hi'), 'echo hi');
    assert.equal(commandLine('cd /tmp'), 'cd /tmp');
    assert.equal(commandLine('export X=1'), 'export X=1');
    assert.equal(commandLine('echo "a'), `eval $'echo "a'`);
    assert.equal(commandLine('for i in 1 2'), `eval $'for i in 1 2'`);
    assert.equal(commandLine('a\nb'), `eval $'a\\nb'`);
    assert.equal(commandLine("it's"), `eval $'it\\'s'`);
    assert.equal(commandLine('echo 名'), `eval $'echo \\xe5\\x90\\x8d'`);
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
