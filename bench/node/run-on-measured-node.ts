import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_CACHE_DIR, parseNodeChoice, resolveMeasuredNode, type MeasuredNode } from './measured-node.js';

/** Set in the re-run process, so that it never re-runs itself again. */
const ON_MEASURED_NODE = 'GW_BENCH_ON_MEASURED_NODE';

/**
 * For the bench's stand-alone scripts whose measured processes are this script's own forks (bench/memory-choice.ts:
 * the gateway sandboxes fork with the script's binary, inside test/aws-shaped/support): the whole script runs again
 * on the measured Node (`--node lambda|current|PATH`, default lambda, as `npm run bench`) unless it already is, and
 * this process exits with its code. Returns the Node the script goes on with, when this process is the one to go on.
 */
export async function runOnMeasuredNode(script: string, argv: readonly string[], root: string): Promise<MeasuredNode> {
  const at = argv.indexOf('--node');
  const choice = parseNodeChoice(at >= 0 && argv[at + 1] !== undefined ? argv[at + 1] : 'lambda');
  const here: MeasuredNode = { path: process.execPath, version: process.version, requested: 'current', source: 'harness' };
  if (process.env[ON_MEASURED_NODE] === '1') return here;
  const measured = await resolveMeasuredNode(choice, { cacheDir: join(root, DEFAULT_CACHE_DIR), log: (line) => process.stderr.write(`${line}\n`) });
  if (measured.note) process.stderr.write(`${measured.note}\n`);
  if (measured.path === process.execPath) return measured;
  const rerun = spawnSync(measured.path, ['--import', 'tsx', script, ...argv], { cwd: root, stdio: 'inherit', env: { ...process.env, [ON_MEASURED_NODE]: '1' } });
  process.exit(rerun.status ?? 1);
}
