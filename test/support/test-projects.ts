import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which test files share a worker process (vitest.config.ts, project `shared`) and which keep one of their own
 * (project `isolated`). A process of its own costs a file seconds of module loading (the AWS SDK, DuckDB, dynalite,
 * aws-cdk-lib and gw's code), more than most integration files spend on their tests; test/support/shared-worker-setup.ts gives a
 * file in a shared worker what a new process gave it (gw's modules evaluated afresh, the worker's environment).
 *
 * A file under SHARED_FOLDERS shares unless ISOLATED names it or it does what that set-up cannot undo: `vi.mock` (a
 * mocked module stays mocked for the worker's later files). New files are classified by the same rule, unlisted.
 */
// test/infra/ shares too (aws-cdk-lib loads once per worker). test/aws-shaped/ (the built bundles run as Lambda runs
// them) and test/clients/ keep a process per file: not audited for sharing.
export const SHARED_FOLDERS = ['test/integration', 'test/unit', 'test/infra'];

/** Files or folders (ending in `/`) under SHARED_FOLDERS that keep a process of their own, and why. */
export const ISOLATED: Record<string, string> = {
  // A browser and the console's build per file, minutes long: module loading is not what they spend.
  'test/integration/console/': 'browser tests',
  // Its folder (gw-engine-failure-*) came back after the file had removed it: something of its failed log engine
  // still ran after the file ended, which only the end of its own process stops (the run's temp-folder check caught it).
  'test/integration/reliability/request-log-engine-failure.test.ts': 'work of a failed log engine outlives the file',
  // Lease managers with sweep timers, processes that share one store, minutes-long files: not yet run in a shared
  // worker (a pass with no time left for it); module loading is a small part of what they spend.
  'test/integration/enforcement/': 'not yet run in a shared worker',
  // Measures a gw process of its own under 200 slow readers (~2 min): nothing to gain, and in a shared worker on the
  // loaded machine its paced upstream (in the test process) reset one stream, a failure it had seen once before.
  'test/integration/stream-backpressure-memory.test.ts': 'its upstream in the test process under 200 slow readers',
};

const UNDOABLE = /\bvi\.(mock|doMock|hoisted)\(/;

/** The test files under SHARED_FOLDERS that share a worker, relative to `root`. */
export function sharedFiles(root: string): string[] {
  const isolated = Object.keys(ISOLATED);
  return SHARED_FOLDERS.filter((folder) => existsSync(join(root, folder))).flatMap((folder) =>
    (readdirSync(join(root, folder), { recursive: true }) as string[])
      .map((name) => `${folder}/${name.split('\\').join('/')}`)
      .filter((file) => file.endsWith('.test.ts'))
      .filter((file) => !isolated.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry)))
      .filter((file) => !UNDOABLE.test(readFileSync(join(root, file), 'utf8'))),
  ).sort();
}
