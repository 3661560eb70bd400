import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/test-sequencer.js';
import { sharedFiles } from './test/support/test-projects.js';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
// Files that share a worker process (test/support/test-projects.ts says which and why); every other file gets a
// process of its own, new files included.
// GW_TEST_SHARED_WORKERS=OFF runs every file in a process of its own (to tell a leak between files from a defect).
const SHARED = process.env.GW_TEST_SHARED_WORKERS === 'OFF' ? [] : sharedFiles(ROOT);

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: SHARED,
          // One process runs file after file: modules of packages load once per worker, not once per file
          // (test/support/shared-worker-setup.ts gives each file fresh gw modules and the worker's environment).
          isolate: false,
          setupFiles: ['./test/support/shared-worker-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SHARED],
          // Each file runs in a process of its own.
          isolate: true,
        },
      },
    ],
  },
});
