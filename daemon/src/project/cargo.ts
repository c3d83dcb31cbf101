import { conventionDiscoverer } from './conventions.js';

/** `Cargo.toml` → cargo's conventional commands. */
export const discoverCargo = conventionDiscoverer('Cargo.toml', 'cargo', ['cargo'], [
  ['build', 'cargo build', 'compile the package'],
  ['test', 'cargo test', 'run the tests'],
  ['check', 'cargo check', 'type-check without building'],
  ['clippy', 'cargo clippy', 'lint with clippy'],
  ['run', 'cargo run', 'build and run the binary'],
]);
