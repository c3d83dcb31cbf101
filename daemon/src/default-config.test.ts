import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_COMMAND_RULES, parseConfigText } from '@holdfast/shared/config';
import { writeDefaultConfigIfAbsent } from './config-store.js';
import { DEFAULT_CONFIG_YAML } from './default-config.js';
import { evaluateCommand } from './policy/commands.js';

describe('generated config.yaml (issue 5)', () => {
  it('parses, allows by default, confirms git push/docker/npm install, denies rm -rf /, mkfs, shutdown', () => {
    const cfg = parseConfigText(DEFAULT_CONFIG_YAML);
    const rules = cfg.security.commands;
    assert.equal(rules.default, 'allow');
    assert.equal(cfg.retention.task_days, 30);
    const d = (c: string) => evaluateCommand({ command: c }, rules).decision;
    assert.equal(d('ls -la'), 'allow');
    assert.equal(d('git push origin main'), 'confirm');
    assert.equal(d('docker run --rm alpine true'), 'confirm');
    assert.equal(d('npm install'), 'confirm');
    assert.equal(d('rm -rf /'), 'deny');
    assert.equal(d('rm -rf /*'), 'deny');
    assert.equal(d('sudo rm -rf ~/'), 'deny');
    assert.equal(d('mkfs.ext4 /dev/sdz'), 'deny');
    assert.equal(d('shutdown -h now'), 'deny');
    assert.equal(d('rm -rf build'), 'allow');
    assert.equal(d('systemctl --no-block start reboot.target'), 'deny');
    assert.equal(d('sudo sgdisk -Z /dev/sdb'), 'deny');
    assert.equal(d('cryptsetup luksFormat /dev/sdb1'), 'deny');
    assert.equal(d('nvme format /dev/nvme0n1'), 'deny');
    assert.equal(d('sfdisk /dev/sdb < layout'), 'confirm');
    assert.equal(d('git send-pack origin main'), 'confirm');
    assert.equal(d('systemctl status nginx'), 'allow');
    for (const c of ['git clean -fdx', 'git reset --hard HEAD~1', 'git checkout -- .', 'git restore .', 'git stash -u']) assert.equal(d(c), 'confirm', c);
    for (const c of ['git stash -a', 'git stash save -a', 'git checkout -- :/', 'git restore :/', 'git checkout -f', 'git switch --discard-changes main']) assert.equal(d(c), 'confirm', c);
    for (const c of ['git reset --soft HEAD~1', 'git checkout main', 'git restore src/a.ts', 'git stash', 'git switch main']) assert.equal(d(c), 'allow', c);
    for (const c of ['systemctl restart reboot.target', 'systemctl start ctrl-alt-del.target', 'systemctl start systemd-reboot.service', 'systemctl isolate poweroff.target']) assert.equal(d(c), 'deny', c);
    for (const c of ['systemctl restart nginx', 'systemctl status reboot.target']) assert.equal(d(c), 'allow', c);
    for (const c of ['kexec -e', 'systemctl soft-reboot', 'mkdosfs /dev/sdb1', 'hdparm --security-erase-enhanced x /dev/sda']) assert.equal(d(c), 'deny', c);
    for (const c of ['npm -C x i', 'corepack npm i x', 'pip3.12 install x', 'uv pip install x', 'docker-compose up', 'nerdctl run x', 'systemctl rescue']) assert.equal(d(c), 'confirm', c);
    for (const c of ['npm -C x run build', 'uv run pytest']) assert.equal(d(c), 'allow', c);
  });
  it('spells out exactly the rules a config without security.commands gets', () => {
    const generated = parseConfigText(DEFAULT_CONFIG_YAML).security.commands;
    const implicit = parseConfigText('workspaces: []\n').security.commands;
    assert.deepEqual(generated, implicit);
    assert.deepEqual(implicit.deny, [...DEFAULT_COMMAND_RULES.deny]);
  });
  it('is written once, 0600, never over an existing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hf-cfg-'));
    try {
      const p = join(dir, 'home', 'config.yaml');
      assert.equal(writeDefaultConfigIfAbsent(p), true);
      assert.equal(statSync(p).mode & 0o777, 0o600);
      assert.equal(readFileSync(p, 'utf8'), DEFAULT_CONFIG_YAML);
      writeFileSync(p, 'workspaces: []\n');
      assert.equal(writeDefaultConfigIfAbsent(p), false);
      assert.equal(readFileSync(p, 'utf8'), 'workspaces: []\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
