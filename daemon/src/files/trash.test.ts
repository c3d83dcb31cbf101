import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { findOnPath, moveToTrash, parseTrashInfo } from './trash.js';

describe('trash (issue 4 move_out; FreeDesktop Trash spec 1.0)', () => {
  const base = realpathSync(mkdtempSync('/tmp/hf-trash-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  const variants: [string, NodeJS.ProcessEnv][] = [['built-in writer', { PATH: '' }]];
  if (findOnPath('gio')) variants.push(['gio trash', { PATH: process.env.PATH }]);

  for (const [name, pathEnv] of variants) {
    it(`${name}: a directory, a file and a symlink land in files/ with valid .trashinfo; links are not followed`, async () => {
      const root = join(base, name.replace(/\W+/g, '-'));
      const ws = join(root, 'ws');
      const outside = join(root, 'outside.txt');
      mkdirSync(join(ws, 'build', 'deep'), { recursive: true });
      writeFileSync(join(ws, 'build', 'deep', 'x.o'), 'obj');
      writeFileSync(join(ws, 'notes.txt'), 'n');
      writeFileSync(outside, 'keep me');
      symlinkSync(outside, join(ws, 'link'));
      const env = { ...process.env, ...pathEnv, XDG_DATA_HOME: join(root, 'xdg') };

      const dir = await moveToTrash(join(ws, 'build'), env);
      assert.equal(dir.trash_dir, join(root, 'xdg', 'Trash'));
      assert.ok(existsSync(join(dir.trashed_to, 'deep', 'x.o')), 'the folder moved whole');
      assert.ok(!existsSync(join(ws, 'build')));
      assert.deepEqual(parseTrashInfo(dir.info_file)?.path, join(ws, 'build'));

      const link = await moveToTrash(join(ws, 'link'), env);
      assert.ok(lstatSync(link.trashed_to).isSymbolicLink(), 'the link itself moved');
      assert.equal(readlinkSync(link.trashed_to), outside);
      assert.equal(readFileSync(outside, 'utf8'), 'keep me', 'its target is untouched');

      const file = await moveToTrash(join(ws, 'notes.txt'), env);
      const info = parseTrashInfo(file.info_file);
      assert.equal(info?.path, join(ws, 'notes.txt'));
      assert.match(info?.deletion_date ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      assert.equal(file.method, name === 'gio trash' ? 'gio' : 'builtin');

      // a second file of the same name gets its own slot
      writeFileSync(join(ws, 'notes.txt'), 'second');
      const again = await moveToTrash(join(ws, 'notes.txt'), env);
      assert.notEqual(again.trashed_to, file.trashed_to);
      assert.equal(readFileSync(again.trashed_to, 'utf8'), 'second');
      assert.equal(parseTrashInfo(again.info_file)?.path, join(ws, 'notes.txt'));
    });
  }
});
