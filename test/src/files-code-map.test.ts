import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT, TestHome } from './_harness/home.js';
import { toolCaller, type ToolReply } from './_harness/tools.js';
import { moreCall } from './_harness/text-calls.js';

const TS = `import { formatName } from './util';

export interface Shape {
  area(): number;
  name: string;
}

export type Point = { x: number; y: number };

export enum Color { Red, Green }

export abstract class Base implements Shape {
  name = 'base';
  abstract area(): number;
  describe(): string {
    return formatName(this.name);
  }
}

export class Circle extends Base {
  constructor(private r: number) {
    super();
  }
  area(): number {
    return Math.PI * this.r ** 2;
  }
  onResize = (by: number): void => {
    this.r *= by;
  };
}

export const makeCircle = (r: number): Circle => new Circle(r);

export function total(shapes: Shape[]): number {
  return shapes.reduce((s, x) => s + x.area(), 0);
}
`;

const PY = `import os

LIMIT = 10

class Store:
    def __init__(self, root):
        self.root = root

    def load(self, key):
        return open(os.path.join(self.root, key)).read()


def helper(x):
    return x * 2
`;

const GO = `package main

import "fmt"

type Server struct {
	Port int
}

type Handler interface {
	Serve() error
}

func (s *Server) Serve() error {
	return nil
}

func main() {
	fmt.Println(NewServer(8080).Port)
}

func NewServer(port int) *Server {
	return &Server{Port: port}
}
`;

const RS = `pub struct Config {
    pub name: String,
}

pub trait Named {
    fn name(&self) -> &str;
}

impl Named for Config {
    fn name(&self) -> &str {
        &self.name
    }
}

pub fn load(path: &str) -> Config {
    Config { name: path.to_string() }
}

macro_rules! shout {
    ($e:expr) => { println!("{}", $e) };
}
`;

type Sym = { kind: string; name: string; line: number; end_line: number; signature: string; container?: string };

describe('code map: read(view="outline") and read(view="references") (issue 17)', () => {
  const h = new TestHome();
  let call: ReturnType<typeof toolCaller>;
  let rs: string;
  let read: (args: Record<string, unknown>) => Promise<ToolReply>;
  const bytesOf = (r: ToolReply): number => Buffer.byteLength(r.text) + Buffer.byteLength(JSON.stringify(r.env));

  before(async () => {
    const w = (p: string, text: string): void => {
      mkdirSync(join(h.workspace, p, '..'), { recursive: true });
      writeFileSync(join(h.workspace, p), text);
    };
    w('src/shapes.ts', TS);
    w('src/util.ts', 'export function formatName(n: string): string {\n  return n.toUpperCase();\n}\n');
    w('src/a.ts', "import { formatName } from './util';\nexport const a = formatName('a');\n");
    w('src/b.ts', "import { formatName } from './util';\n// formatName in a comment is not a use\nconst s = 'formatName';\nexport const b = [formatName('b'), formatName('c')];\n");
    w('web/c.js', "const { formatName } = require('../src/util');\nmodule.exports = () => formatName('c');\n");
    w('app.py', PY);
    w('main.go', GO);
    w('lib.rs', RS);
    w('README.md', '# fixture\n');
    w('.gitignore', 'ignored/\n');
    w('ignored/secret.ts', "import { formatName } from '../src/util';\nformatName('hidden');\n");
    // A 3 MB generated file: skipped by the outline and the map.
    const line = 'export const generatedValue0000000 = 1234567890;\n';
    w('gen/big.ts', line.repeat(Math.ceil((3 * 1024 * 1024) / line.length)));
    await h.startDaemon();
    call = toolCaller(h.client(), 'p', ['workspace', 'session', 'read']);
    const open = await call('session', { action: 'open', workspace: 'ws' });
    rs = open.env.data.remote_session_id as string;
    read = (args) => call('read', { remote_session_id: rs, ...args });
  });
  after(() => h.cleanup());

  it('outline of a TypeScript file: classes, interfaces, methods, arrow functions, types', async () => {
    const r = await read({ view: 'outline', path: 'src/shapes.ts' });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.equal(r.env.data.language, 'typescript');
    const syms = r.env.data.symbols as Sym[];
    const find = (name: string, kind: string) => syms.find((s) => s.name === name && s.kind === kind);
    assert.ok(find('Shape', 'interface'));
    assert.ok(find('Point', 'type'));
    assert.ok(find('Color', 'enum'));
    assert.ok(find('Base', 'class'));
    assert.deepEqual(find('Circle', 'class') && { line: find('Circle', 'class')!.line, end_line: find('Circle', 'class')!.end_line }, { line: 20, end_line: 30 });
    const member = (name: string, container: string) => syms.find((s) => s.name === name && s.kind === 'method' && s.container === container);
    assert.ok(member('area', 'Shape'), 'an interface method');
    assert.ok(member('area', 'Circle'));
    assert.ok(member('describe', 'Base'));
    assert.ok(member('onResize', 'Circle'), 'an arrow-function class field');
    const arrow = find('makeCircle', 'function');
    assert.ok(arrow);
    assert.equal(arrow.signature, 'export const makeCircle = (r: number): Circle => new Circle(r);');
    assert.ok(find('total', 'function'));
    assert.match(r.text, /20-30 class: export class Circle extends Base \{/);
  });

  it('outline of a Python, a Go and a Rust file', async () => {
    const names = async (path: string): Promise<string[]> => {
      const r = await read({ view: 'outline', path });
      assert.equal(r.env.status, 'succeeded', r.text);
      return (r.env.data.symbols as Sym[]).map((s) => `${s.kind} ${s.name}${s.container ? ` in ${s.container}` : ''}`);
    };
    assert.deepEqual(await names('app.py'), ['constant LIMIT', 'class Store', 'function __init__ in Store', 'function load in Store', 'function helper']);
    assert.deepEqual(await names('main.go'), ['type Server', 'type Handler', 'method Serve', 'function main', 'function NewServer']);
    const rust = await names('lib.rs');
    for (const want of ['class Config', 'interface Named', 'method name', 'function load', 'macro shout']) assert.ok(rust.some((x) => x.startsWith(want)), `${want} in ${rust.join(', ')}`);
  });

  it('an unsupported language and a 3 MB generated file answer with a read action', async () => {
    const md = await read({ view: 'outline', path: 'README.md' });
    assert.equal(md.env.status, 'succeeded');
    assert.equal(md.env.data.supported, false);
    assert.equal(md.env.data.reason, 'unsupported');
    assert.deepEqual(md.env.actions[0]?.arguments, { remote_session_id: rs, path: 'README.md' });
    const big = await read({ view: 'outline', path: 'gen/big.ts' });
    assert.equal(big.env.data.reason, 'too_large');
    assert.match(big.text, /larger than 2 MB/);
    assert.equal(big.env.actions[0]?.tool, 'read');
  });

  it('the workspace map ranks the shared helper first, skips the 3 MB file and ignored folders', async () => {
    const r = await read({ view: 'outline' });
    assert.equal(r.env.type, 'read.map', r.text);
    const files = r.env.data.files as { path: string; symbols: Sym[] }[];
    assert.equal(files[0]!.path, 'src/util.ts', 'the file three others use comes first');
    const paths = files.map((f) => f.path);
    assert.ok(!paths.includes('gen/big.ts') && !paths.some((p) => p.startsWith('ignored/')), paths.join(', '));
    assert.equal(r.env.data.skipped.too_large, 1);
    assert.deepEqual(r.env.data.skipped.too_large_examples, ['gen/big.ts']);
    assert.match(r.text, /skipped: 1 over 2 MB \(gen\/big\.ts\)/);
  });

  it('references of a function used in three files: definitions and uses, name-based', async () => {
    const r = await read({ view: 'references', query: 'formatName' });
    assert.equal(r.env.status, 'succeeded', r.text);
    assert.deepEqual(
      (r.env.data.definitions as { path: string; line: number }[]).map((d) => `${d.path}:${d.line}`),
      ['src/util.ts:1'],
    );
    const uses = (r.env.data.uses as { path: string; line: number; text: string }[]).map((u) => `${u.path}:${u.line}`);
    assert.deepEqual(uses, ['src/a.ts:1', 'src/a.ts:2', 'src/b.ts:1', 'src/b.ts:4', 'src/b.ts:4', 'src/shapes.ts:1', 'src/shapes.ts:16', 'web/c.js:1', 'web/c.js:2']);
    assert.equal(r.env.data.files, 5);
    assert.match(r.env.data.matching, /name-based/);
    assert.match(r.text, /name-based/);
    assert.match(r.text, /src\/b\.ts:4: export const b = \[formatName\('b'\), formatName\('c'\)\];/);
    const paged = await read({ view: 'references', query: 'formatName', limit: 4 });
    assert.equal((paged.env.data.uses as unknown[]).length, 4);
    const next = paged.env.actions.find((a) => typeof a.arguments.cursor === 'string');
    assert.ok(next);
    const second = await call('read', next.arguments);
    assert.equal(second.env.data.offset, 4);
    assert.equal((second.env.data.definitions as unknown[]).length, 0, 'definitions come with the first page');
    const bad = await read({ view: 'references', query: 'two words' });
    assert.equal(bad.env.error?.code, 'BAD_REQUEST');
  });

  it('the map and references page to the end by their text blocks alone (the last line names the next call)', async () => {
    // A client that gives the model only the text block (DESIGN §6.3) saw "(more: next_cursor)".
    const follow = async (first: Record<string, unknown>, rows: RegExp): Promise<string[]> => {
      const seen: string[] = [];
      let args: Record<string, unknown> | null = { remote_session_id: rs, ...first };
      for (let pages = 1; args; pages++) {
        assert.ok(pages < 20, 'the text calls make progress');
        const r = await call('read', args);
        assert.equal(r.env.status, 'succeeded', r.text);
        assert.doesNotMatch(r.text, /next_cursor|see actions/);
        seen.push(...r.text.split('\n').filter((l) => rows.test(l)));
        const next = moreCall(r.text);
        assert.equal(next === null, r.env.actions.length === 0, `a next call in the text exactly when there is a next page: ${r.text}`);
        if (next) assert.deepEqual({ remote_session_id: rs, ...next.args }, r.env.actions[0]!.arguments, 'the text names the action\'s call');
        args = next ? { remote_session_id: rs, ...next.args } : null;
      }
      return seen;
    };
    const all = await read({ view: 'outline' });
    const mapped = await follow({ view: 'outline', limit: 2 }, /^\S+ \[\w+, rank /);
    assert.equal(mapped.length, all.env.data.total_files);
    const uses = await follow({ view: 'references', query: 'formatName', limit: 4 }, /^(?!def )\S+:\d+: /);
    assert.equal(uses.length, 9);
  });

  it('paging with a stale snapshot is refused with a fresh-start action', async () => {
    const first = await read({ view: 'outline', limit: 2 });
    const next = first.env.actions.find((a) => typeof a.arguments.cursor === 'string');
    assert.ok(next, first.text);
    const t = new Date(Date.now() + 5000);
    utimesSync(join(h.workspace, 'src', 'a.ts'), t, t);
    const stale = await call('read', next.arguments);
    assert.equal(stale.env.status, 'failed');
    assert.equal(stale.env.error!.code, 'CURSOR_STALE', stale.text);
    const fresh = stale.env.actions[0]!;
    assert.equal(fresh.arguments.cursor, undefined);
    assert.equal(fresh.arguments.view, 'outline');
    const again = await call('read', fresh.arguments);
    assert.equal(again.env.status, 'succeeded');
    const page2 = await call('read', again.env.actions.find((a) => typeof a.arguments.cursor === 'string')!.arguments);
    assert.equal(page2.env.status, 'succeeded', 'a cursor of the fresh snapshot pages');
    assert.equal(page2.env.data.offset, 2);
  });

  it('the ranked map of this repository stays within the caps', async () => {
    const reg = await h.cli(['workspace', 'register', REPO_ROOT, '--name', 'repo']);
    assert.equal(reg.code, 0, reg.stderr);
    const open = await call('session', { action: 'open', workspace: 'repo' });
    const repo = open.env.data.remote_session_id as string;
    const r = await call('read', { remote_session_id: repo, view: 'outline' });
    assert.equal(r.env.status, 'succeeded', r.text);
    const files = r.env.data.files as { path: string; symbols: Sym[] }[];
    assert.ok(files.length > 5 && files.length <= 20, `${files.length} files`);
    assert.ok(files.every((f) => f.symbols.length <= 64));
    assert.ok(!files.some((f) => f.path.includes('node_modules') || f.path.includes('/dist/')), '.gitignore respected');
    assert.ok(r.env.data.complete);
    assert.ok(r.env.data.total_files > 100);
    assert.ok(bytesOf(r) <= 44 * 1024, `${bytesOf(r)} bytes`);
    assert.ok(files.slice(0, 10).some((f) => f.path === 'shared/src/errors.ts'), files.map((f) => f.path).join(', '));
    const outline = await call('read', { remote_session_id: repo, view: 'outline', path: 'daemon/src/sessions/manager.ts' });
    assert.ok(bytesOf(outline) <= 44 * 1024);
    assert.ok((outline.env.data.symbols as Sym[]).some((s) => s.name === 'SessionManager' && s.kind === 'class'));
  });
});
