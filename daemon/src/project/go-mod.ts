import { conventionDiscoverer } from './conventions.js';

/** `go.mod` → go's conventional commands over `./...`. */
export const discoverGoMod = conventionDiscoverer('go.mod', 'go', ['go'], [
  ['build', 'go build ./...', 'compile every package'],
  ['test', 'go test ./...', 'run every package test'],
  ['vet', 'go vet ./...', 'report suspicious constructs'],
]);
