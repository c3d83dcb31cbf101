import { sandboxScenarios } from './_harness/sandbox.js';

// The real Landlock helper built by `npm ci` (guardian/native/landlock-exec.c), forced.
sandboxScenarios('landlock');
