import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSkillFile } from './skill-file.js';

describe('SKILL.md parsing (issue 13)', () => {
  it('returns the body after the front matter byte for byte', () => {
    const body = 'line one\r\n  “two”\t\n\nthree';
    const m = parseSkillFile(Buffer.from(`---\nname: s1\ndescription: Does s1\nentry: run.sh\narguments:\n  type: object\n---\n${body}`), 'folder');
    assert.equal(m.name, 's1');
    assert.equal(m.entry, 'run.sh');
    assert.deepEqual(m.arguments, { type: 'object' });
    assert.ok(m.body.equals(Buffer.from(body)));
  });

  it('takes the folder name when name is absent; refuses what is not a skill', () => {
    assert.equal(parseSkillFile(Buffer.from('---\ndescription: d\n---\n'), 'my-skill').name, 'my-skill');
    assert.throws(() => parseSkillFile(Buffer.from('# no front matter\n'), 'x'), /must start with YAML front matter/);
    assert.throws(() => parseSkillFile(Buffer.from('---\nname: x\n'), 'x'), /not closed/);
    assert.throws(() => parseSkillFile(Buffer.from('---\nname: x\n---\n'), 'x'), /description is required/);
    assert.throws(() => parseSkillFile(Buffer.from('---\nname: ../x\ndescription: d\n---\n'), 'x'), /must be 1-64/);
    assert.throws(() => parseSkillFile(Buffer.from('---\ndescription: d\narguments: [1]\n---\n'), 'x'), /JSON Schema object/);
  });
});
