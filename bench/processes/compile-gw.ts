import { join, relative } from 'node:path';
import type { ChildRegistry } from './children.js';
import { childEnvironment } from './launch.js';

/**
 * For `--cpu-prof`: infra/local/main.ts compiled ahead by esbuild, unminified, names kept, with a source map,
 * packages left to node_modules. tsx compiles on the fly with whitespace minified, so every frame of a profile
 * would sit on line 1; the compiled file runs the same code and its source map leads each frame back to its
 * file and line (see profile/summarize.ts). Built in a child process, like everything the harness runs.
 * `outDir` must lie inside the project, so the bundle's imports still resolve to its node_modules.
 */
export async function compileGwForProfiling(registry: ChildRegistry, root: string, outDir: string): Promise<string> {
  const outfile = join(outDir, 'gw-local.mjs');
  const script = `
import { build } from 'esbuild';
import { copyFileSync, readFileSync } from 'node:fs';
// gw's version as the deploy bundles have it (infra/cdk/bundle-options.ts): shared/version.ts would otherwise read
// package.json relative to the bundle, which lives deeper than the source.
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const common = { bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', sourcemap: true, keepNames: true, logLevel: 'warning', define: { __GW_VERSION__: JSON.stringify(version) } };
await build({ ...common, entryPoints: ['infra/local/main.ts'], outfile: process.env.BENCH_OUTFILE });
// The embedded store's own process, forked by the bundle from beside it (infra/local/store/child-store.ts).
await build({ ...common, entryPoints: ['infra/local/store-process.ts'], outfile: process.env.BENCH_OUTFILE.replace(/[^/]+$/, 'store-process.mjs') });
// The request-log DuckDB worker (shared/observability/engine/duckdb/engine.ts), started from beside the bundle too:
// its plain-JavaScript entry as it is, and the worker module compiled to the worker.js the entry imports.
copyFileSync('shared/observability/engine/duckdb/worker-entry.mjs', process.env.BENCH_OUTFILE.replace(/[^/]+$/, 'worker-entry.mjs'));
await build({ ...common, entryPoints: ['shared/observability/engine/duckdb/worker.ts'], outfile: process.env.BENCH_OUTFILE.replace(/[^/]+$/, 'worker.js') });
`;
  const { exit, stderr } = await registry.run(
    { name: 'compile gw for profiling', runtime: 'harness', nodeArgs: ['--input-type=module', '--eval', script], cwd: root, env: childEnvironment({ BENCH_OUTFILE: outfile }) },
    120_000,
  );
  if (exit.code !== 0) throw new Error(`compiling gw for profiling failed (code ${exit.code}): ${stderr.slice(-2000)}`);
  return relative(root, outfile);
}
