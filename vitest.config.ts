import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/test-sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file runs in its own worker: settings are parsed once per process, so a file that needs
    // different settings gets a clean process.
    pool: 'forks',
    // At least two files at once: most files wait on loopback I/O and child processes, and on a 2-core runner
    // vitest's default (cores - 1) ran one file at a time (9.3 min against 7.2 with two).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Longest files first, from committed weights where vitest has no record of its own (a clean clone, as on CI):
    // the run must not end on one long file while the other worker idles.
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 20_000,
    // A temporary folder per run (TMPDIR), removed at its end; the run fails if a test left gw's folders in it.
    globalSetup: ['./test/support/temp-dirs-global-setup.ts'],
    hookTimeout: 30_000,
    // The run's AWS-operation record (shared/store/recording/), checked against the grants by scripts/check-grants.ts.
    reporters: ['default', './test/support/aws-operations-reporter.ts'],
    env: {
      GW_RECORD_AWS_OPERATIONS_DIR: process.env.GW_RECORD_AWS_OPERATIONS_DIR ?? '.test-results/aws-ops',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_DEV: 'false',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // The embedded store of test gateways runs inside the test process: a store process costs ~1 s of start-up
      // per file. test/integration/local-store/ runs the default (child) mode on purpose.
      GW_LOCAL_STORE: process.env.GW_LOCAL_STORE ?? 'in-process',
    },
  },
});
