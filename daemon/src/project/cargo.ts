import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectTask, TaskDiscoverer } from './types.js';

const CONVENTIONS: readonly [string, string, string][] = [
  ['build', 'cargo build', 'compile the package'],
  ['test', 'cargo test', 'run the tests'],
  ['check', 'cargo check', 'type-check without building'],
  ['clippy', 'cargo clippy', 'lint with clippy'],
  ['run', 'cargo run', 'build and run the binary'],
];

/** `Cargo.toml` → cargo's conventional commands. */
export const discoverCargo: TaskDiscoverer = (root) => {
  if (!existsSync(join(root, 'Cargo.toml'))) return [];
  return CONVENTIONS.map(([name, command, description]): ProjectTask => ({ name, qualified: `cargo:${name}`, source: 'cargo', command, description, diagnostics: ['cargo'], cwd: '' }));
};
