import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestHome } from './_harness/home.js';
import { openSession, toolCaller, type ToolReply } from './_harness/tools.js';

/**
 * `skill_tool` (issue 13): skills in `<home>/skills`, `.holdfast/skills` and `.claude/skills`;
 * document skills return their instructions byte for byte (and named files), executable skills
 * run their entry as a task with the validated arguments after the user's confirmation and
 * through the command policy; an edited folder after `describe` is `SKILL_REVISION_CHANGED`.
 */
const BODY = '# Greeting\r\n\r\nSay “hello” — then wait.  \n\ttabbed line\n\nno newline at the end';
const SECRET = 'skill-arg-secret-91b2';

function writeSkill(dir: string, frontMatter: string, body: string, files: Record<string, string | Buffer> = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\n${frontMatter}\n---\n${body}`);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
}

describe('skill_tool (issue 13)', () => {
  const h = new TestHome({ security: { commands: { deny: ['deploy.sh'] } } });
  let skill: (args: Record<string, unknown>) => Promise<ToolReply>;
  let rs: string;

  before(async () => {
    writeSkill(join(h.home, 'skills', 'greet'), 'name: greet\ndescription: How to greet the user', BODY, { 'reference.md': 'Reference text\n', 'logo.bin': Buffer.from([0, 1, 2, 255]) });
    writeSkill(join(h.workspace, '.claude', 'skills', 'greet'), 'name: greet\ndescription: A workspace copy that must not win', 'shadowed');
    writeSkill(
      join(h.workspace, '.holdfast', 'skills', 'report'),
      'name: report\ndescription: Write a report line\nentry: run.sh\narguments:\n  type: object\n  properties:\n    title: {type: string}\n    token: {type: string}\n  required: [title]\n  additionalProperties: false',
      'Runs run.sh with a title.\n',
      { 'run.sh': 'echo "args=$HOLDFAST_SKILL_ARGUMENTS name=$HOLDFAST_SKILL_NAME cwd=$PWD"\n' },
    );
    writeSkill(join(h.workspace, '.claude', 'skills', 'deploy'), 'description: Deploy everything\nentry: deploy.sh', 'Deploys.\n', { 'deploy.sh': 'echo deployed\n' });
    writeSkill(join(h.workspace, '.claude', 'skills', 'broken'), 'name: broken', 'no description\n');
    await h.startDaemon();
    const client = h.client();
    rs = await openSession(client);
    const call = toolCaller(client, 'p', ['skill_tool', 'execute']);
    skill = (args) => call('skill_tool', { remote_session_id: rs, ...args });
  });
  after(() => h.cleanup());

  it('list: every skill once (the home wins a name clash), compact, invalid ones marked', async () => {
    const r = await skill({ action: 'list' });
    assert.deepEqual(
      r.env.data.skills.map((s: { name: string; kind: string }) => [s.name, s.kind]),
      [['broken', 'invalid'], ['deploy', 'executable'], ['greet', 'document'], ['report', 'executable']],
    );
    assert.equal(r.env.data.skills.find((s: { name: string }) => s.name === 'greet').description, 'How to greet the user');
    assert.match(r.env.data.skills[0].error, /description is required/);
  });

  it('a document skill’s instructions come back byte for byte, with the files it names', async () => {
    const d = await skill({ action: 'describe', skill: 'greet' });
    assert.equal(d.env.status, 'succeeded', d.text);
    assert.equal(d.raw.content[1]!.type, 'text');
    assert.ok(Buffer.from((d.raw.content[1] as { text: string }).text, 'utf8').equals(Buffer.from(BODY, 'utf8')), 'describe: instructions byte-exact');
    assert.deepEqual(d.env.data.files.map((f: { path: string }) => f.path), ['SKILL.md', 'logo.bin', 'reference.md']);
    assert.equal(d.env.data.source, 'home');

    const c = await skill({ action: 'call', skill: 'greet', files: ['reference.md', 'logo.bin'] });
    assert.equal(c.env.status, 'succeeded', c.text);
    assert.ok(Buffer.from((c.raw.content[1] as { text: string }).text, 'utf8').equals(Buffer.from(BODY, 'utf8')), 'call: instructions byte-exact');
    const [ref, logo] = c.raw.content.slice(2) as { type: string; resource: { uri: string; text?: string; blob?: string } }[];
    assert.equal(ref!.type, 'resource');
    assert.equal(ref!.resource.text, 'Reference text\n');
    assert.match(ref!.resource.uri, /^file:\/\/.*\/skills\/greet\/reference\.md$/);
    assert.equal(Buffer.from(logo!.resource.blob!, 'base64').toString('hex'), '000102ff');

    const outside = await skill({ action: 'call', skill: 'greet', files: ['../../config.yaml'] });
    assert.equal(outside.env.error?.code, 'PATH_OUTSIDE_WORKSPACE', outside.text);
  });

  it('an executable skill runs its entry as a task with the validated arguments, after the user’s confirmation', async () => {
    const bad = await skill({ action: 'call', skill: 'report', arguments: { titel: 'x' } });
    assert.equal(bad.env.error?.code, 'BAD_REQUEST', bad.text);

    const args = { title: 'Q3', token: SECRET };
    const asked = await skill({ action: 'call', skill: 'report', arguments: args, purpose: 'weekly report' });
    assert.equal(asked.env.status, 'waiting_confirmation', asked.text);
    assert.ok(!JSON.stringify(asked.env).includes(SECRET) && !asked.text.includes(SECRET), 'the arguments are never echoed');
    assert.equal(asked.env.actions[0]!.arguments.arguments, undefined);
    assert.equal(asked.env.actions[0]!.arguments.user_confirmed, true);

    const replay = await skill({ action: 'call', skill: 'report', arguments: { ...args, title: 'Q4' }, purpose: 'weekly report', user_confirmed: true });
    assert.equal(replay.env.error?.code, 'CONFIRMATION_NOT_FOUND');

    const ran = await skill({ action: 'call', skill: 'report', arguments: args, purpose: 'weekly report', user_confirmed: true });
    assert.equal(ran.env.status, 'succeeded', ran.text);
    assert.equal(ran.env.type, 'skill.run');
    assert.match(ran.env.context.execution_task_id!, /^task_/);
    assert.equal(ran.env.data.exit_code, 0);
    assert.equal(ran.env.data.stdout.trimEnd(), `args=${JSON.stringify(args)} name=report cwd=${h.workspace}`);
    const audit = readFileSync(h.layout.auditLog, 'utf8');
    assert.match(audit, /"event":"skill.run"/);
    assert.ok(!audit.includes(SECRET), 'the audit log has the argument digest only');

    const status = await toolCaller(h.client(), 'p', ['execute'])('execute', { action: 'status', remote_session_id: rs, execution_task_id: ran.env.context.execution_task_id });
    assert.equal(status.env.data.state, 'exited', 'it is an execute task like any other');
  });

  it('editing the folder after describe → SKILL_REVISION_CHANGED; describe again and it runs', async () => {
    const d1 = await skill({ action: 'describe', skill: 'report' });
    appendFileSync(join(h.workspace, '.holdfast', 'skills', 'report', 'run.sh'), 'echo edited\n');
    const changed = await skill({ action: 'call', skill: 'report', arguments: { title: 'x' } });
    assert.equal(changed.env.error?.code, 'SKILL_REVISION_CHANGED', changed.text);
    assert.deepEqual(changed.env.actions[0]!.arguments, { action: 'describe', remote_session_id: rs, skill: 'report' });
    const d2 = await skill({ action: 'describe', skill: 'report' });
    assert.notEqual(d2.env.data.revision, d1.env.data.revision);
    const asked = await skill({ action: 'call', skill: 'report', arguments: { title: 'x' } });
    assert.equal(asked.env.status, 'waiting_confirmation');
    const ran = await skill({ action: 'call', skill: 'report', arguments: { title: 'x' }, user_confirmed: true });
    assert.match(ran.env.data.stdout, /edited/, ran.text);
  });

  it('a skill whose entry script matches a deny rule is refused, and nothing runs', async () => {
    const r = await skill({ action: 'call', skill: 'deploy' });
    assert.equal(r.env.error?.code, 'POLICY_DENIED', r.text);
    assert.equal(r.env.type, 'skill.refused');
    assert.match(readFileSync(h.layout.auditLog, 'utf8'), /"event":"skill.refused"/);
  });
});
