import { parse as parseYaml } from 'yaml';

/** What `SKILL.md` says (issue 13; docs/extensions.md). */
export interface SkillManifest {
  name: string;
  description: string;
  /** JSON Schema of an executable skill's arguments (an object schema), if given. */
  arguments: Record<string, unknown> | null;
  /** Entry script, relative to the skill folder; null for a document skill. */
  entry: string | null;
  /** The instructions: the bytes after the front matter, exactly as in the file. */
  body: Buffer;
}

/** Skill names: what folders and Claude Code's skills use. */
export const SKILL_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const DESCRIPTION_MAX_CHARS = 1024;

/**
 * Parses a `SKILL.md`: YAML front matter between a first line `---` and the next line `---`
 * (`name`, `description`, optional `arguments` — a JSON Schema object — and `entry`), then the
 * body, returned byte for byte. Without `name` the folder's name is used.
 * @throws Error with a one-line reason when the file is not a valid skill.
 */
export function parseSkillFile(bytes: Buffer, folderName: string): SkillManifest {
  const text = bytes.toString('utf8');
  const open = /^\uFEFF?---[ \t]*\r?\n/.exec(text);
  if (!open) throw new Error('SKILL.md must start with YAML front matter (a line ---, then name and description, then a line ---)');
  const close = /^---[ \t]*(\r?\n|$)/m;
  const rest = text.slice(open[0].length);
  const m = close.exec(rest);
  if (!m) throw new Error('the front matter of SKILL.md is not closed by a line ---');
  const yamlText = rest.slice(0, m.index);
  const bodyStartChars = open[0].length + m.index + m[0].length;
  const body = bytes.subarray(Buffer.byteLength(text.slice(0, bodyStartChars), 'utf8'));
  let fm: unknown;
  try {
    fm = parseYaml(yamlText);
  } catch (err) {
    throw new Error(`the front matter of SKILL.md is not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!fm || typeof fm !== 'object' || Array.isArray(fm)) throw new Error('the front matter of SKILL.md must be a mapping');
  const f = fm as Record<string, unknown>;
  const name = f.name === undefined ? folderName : f.name;
  if (typeof name !== 'string' || !SKILL_NAME_RE.test(name)) throw new Error(`name ${JSON.stringify(name)} must be 1-64 letters, digits, . _ or - (starting with a letter or digit)`);
  if (typeof f.description !== 'string' || f.description.trim() === '') throw new Error('description is required (one or two sentences: what the skill does and when to use it)');
  if (f.description.length > DESCRIPTION_MAX_CHARS) throw new Error(`description is longer than ${DESCRIPTION_MAX_CHARS} characters`);
  let args: Record<string, unknown> | null = null;
  if (f.arguments !== undefined && f.arguments !== null) {
    if (typeof f.arguments !== 'object' || Array.isArray(f.arguments)) throw new Error('arguments must be a JSON Schema object');
    args = f.arguments as Record<string, unknown>;
    if (args.type !== undefined && args.type !== 'object') throw new Error('arguments must describe an object (type: object)');
  }
  let entry: string | null = null;
  if (f.entry !== undefined && f.entry !== null) {
    if (typeof f.entry !== 'string' || f.entry.trim() === '') throw new Error('entry must be a path relative to the skill folder');
    entry = f.entry;
  }
  return { name, description: f.description.trim(), arguments: args, entry, body };
}
