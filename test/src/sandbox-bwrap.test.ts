import { sandboxScenarios } from './_harness/sandbox.js';

// Real bubblewrap from Debian (.ci/run installs it).
sandboxScenarios('bwrap');
