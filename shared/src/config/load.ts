import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { HoldfastError } from '../errors.js';
import { HoldfastConfig } from './schema.js';

/**
 * Reads and validates `config.yaml`. A missing file is the default config; a file that does not
 * parse or validate is an error naming the key, so a typo never silently widens anything.
 * @throws HoldfastError `BAD_REQUEST` with the YAML or schema problem.
 */
export function loadConfig(path: string): HoldfastConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return HoldfastConfig.parse({});
    throw err;
  }
  return parseConfigText(text, path);
}

/** Parses config text (see {@link loadConfig}). */
export function parseConfigText(text: string, source = 'config.yaml'): HoldfastConfig {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new HoldfastError('BAD_REQUEST', `${source}: ${doc.errors[0]!.message}`);
  }
  const raw = doc.toJS() ?? {};
  const parsed = HoldfastConfig.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HoldfastError('BAD_REQUEST', `${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}
