import { existsSync, linkSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { Document, isMap, isSeq, parseDocument } from 'yaml';
import { loadConfig, parseConfigText, type HoldfastConfig, type WorkspaceConfig } from '@holdfast/shared/config';
import type { WorkspaceView } from '@holdfast/shared/control';
import { HoldfastError } from '@holdfast/shared/errors';
import { writeTempFile } from '@holdfast/shared/protocol';
import { DEFAULT_CONFIG_YAML } from './default-config.js';

/**
 * The daemon's view of `config.yaml` (DESIGN §2): loaded at start, reloaded after the daemon
 * itself rewrites it (`workspace register`). Rewrites go through the `yaml` Document API so
 * comments and key order survive, and are written atomically (0600).
 */
export class ConfigStore {
  private current: HoldfastConfig;

  constructor(readonly path: string) {
    this.current = loadConfig(path);
  }

  get config(): HoldfastConfig {
    return this.current;
  }

  /** Re-reads the file. @throws HoldfastError BAD_REQUEST if it no longer validates. */
  reload(): HoldfastConfig {
    this.current = loadConfig(this.path);
    return this.current;
  }

  /** Registered workspaces with availability (the path exists and is a directory). */
  listWorkspaces(): WorkspaceView[] {
    return this.current.workspaces.map((w) => ({ name: w.name, path: w.path, description: w.description, available: isDirectory(w.path) }));
  }

  /** Finds a workspace by name. */
  findWorkspace(name: string): WorkspaceConfig | undefined {
    return this.current.workspaces.find((w) => w.name === name);
  }

  /**
   * Registers a folder as a workspace (idempotent: the same path returns the existing entry).
   * The name defaults to the folder's name; a name already used for another path is refused.
   * @throws HoldfastError BAD_REQUEST for a path that is not a directory or a taken name.
   */
  registerWorkspace(path: string, name?: string, description?: string): { workspace: WorkspaceView; created: boolean } {
    let root: string;
    try {
      root = realpathSync(path);
    } catch {
      throw new HoldfastError('BAD_REQUEST', `${path} does not exist`);
    }
    if (!isDirectory(root)) throw new HoldfastError('BAD_REQUEST', `${path} is not a directory`);
    const wantName = sanitizeName(name ?? basename(root));
    const samePath = this.current.workspaces.find((w) => safeRealpath(w.path) === root);
    if (samePath && (name === undefined || samePath.name === wantName)) {
      return { workspace: { name: samePath.name, path: samePath.path, description: samePath.description, available: true }, created: false };
    }
    const taken = this.current.workspaces.find((w) => w.name === wantName);
    if (taken) {
      const next = name === undefined ? 'pass --name with another name' : 'choose another --name';
      throw new HoldfastError('BAD_REQUEST', `workspace name "${wantName}" is already used for ${taken.path}; ${next}`);
    }

    const doc = this.readDoc();
    let seq = doc.get('workspaces');
    if (!isSeq(seq)) {
      doc.set('workspaces', doc.createNode([]));
      seq = doc.get('workspaces');
    }
    const entry: Record<string, string> = { name: wantName, path: root };
    if (description) entry.description = description;
    (seq as { add: (v: unknown) => void }).add(doc.createNode(entry));
    this.write(doc);
    return { workspace: { name: wantName, path: root, description: description ?? '', available: true }, created: true };
  }

  /**
   * Unregisters the workspace `name` from `config.yaml` (the folder itself is untouched; comments and
   * the other entries survive). The caller checks that no live session uses it.
   * @throws HoldfastError WORKSPACE_NOT_FOUND for an unknown name.
   */
  removeWorkspace(name: string): WorkspaceView {
    const found = this.current.workspaces.find((w) => w.name === name);
    if (!found) {
      throw new HoldfastError('WORKSPACE_NOT_FOUND', `no workspace named "${name}"; registered: ${this.current.workspaces.map((w) => w.name).join(', ') || '(none)'}`, { retryable: false });
    }
    const doc = this.readDoc();
    const seq = doc.get('workspaces');
    const items = isSeq(seq) ? seq.items : [];
    const index = items.findIndex((it) => isMap(it) && it.get('name') === name);
    if (index === -1) throw new HoldfastError('BAD_REQUEST', `${this.path}: workspace "${name}" is not in the workspaces list (defined elsewhere?); edit the file by hand`);
    (seq as { delete: (i: number) => boolean }).delete(index);
    this.write(doc);
    return { name: found.name, path: found.path, description: found.description, available: isDirectory(found.path) };
  }

  private readDoc(): Document {
    const text = existsSync(this.path) ? readFileSync(this.path, 'utf8') : '';
    const doc: Document = text.trim() === '' ? new Document({}) : parseDocument(text);
    if (doc.errors.length > 0) throw new HoldfastError('BAD_REQUEST', `${this.path}: ${doc.errors[0]!.message}`);
    if (!isMap(doc.contents)) throw new HoldfastError('BAD_REQUEST', `${this.path}: the top level must be a mapping`);
    return doc;
  }

  /** Writes `doc` atomically (0600) after checking it reads back, then reloads. */
  private write(doc: Document): void {
    const out = doc.toString();
    parseConfigText(out, this.path); // never write a file we could not read back
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = writeTempFile(this.path, out);
    try {
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    this.reload();
  }
}

/**
 * Writes the commented default `config.yaml` (daemon/src/default-config.ts, issue 5) when the home
 * has none yet: 0600, complete or not at all (temp file + link, which never replaces an existing
 * file). Returns true when it wrote one.
 */
export function writeDefaultConfigIfAbsent(path: string): boolean {
  if (existsSync(path)) return false;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = writeTempFile(path, DEFAULT_CONFIG_YAML);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function safeRealpath(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** Workspace names are `[A-Za-z0-9._-]`, 1–64 chars; other characters become `-`. */
function sanitizeName(n: string): string {
  const s = n.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 64);
  return s.length > 0 ? s : 'workspace';
}
