import { copyFileSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { bundleBudgetKiB, LAMBDA_BUNDLE } from '../infra/cdk/bundle-options.js';

/**
 * `npm run build`: one minified ESM bundle per Lambda under dist/<function>/index.mjs, with a source map, built
 * with the same options the CDK stack bundles with (infra/cdk/bundle-options.ts). `--analyze` lists what takes
 * the space in each bundle; `--check-budget` exits non-zero when a bundle is over its budget (the bundle test in
 * test/infra enforces the budgets in CI).
 */

export interface BuiltFunction {
  name: string;
  file: string;
  bytes: number;
  budgetKiB: number;
  /** Output bytes per npm package (or `(own code)`), largest first. */
  byPackage: Array<{ source: string; bytes: number }>;
  /** What the bundle still imports at run time, as esbuild recorded it (no scanning of the minified text). */
  externalImports: { staticImports: string[]; dynamicImports: string[] };
}

export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: LAMBDA_BUNDLE.platform,
    target: LAMBDA_BUNDLE.target,
    format: LAMBDA_BUNDLE.format,
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: LAMBDA_BUNDLE.sourcemap,
    legalComments: LAMBDA_BUNDLE.legalComments,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    external: [...LAMBDA_BUNDLE.external],
    metafile: true,
    logLevel: 'warning',
  };
}

/** gpt-tokenizer as its own file beside each bundle (the bundles import it by a computed specifier). */
export const TOKENIZER_FILE = 'gpt-tokenizer.mjs';

export function tokenizerBuildOptions(outfile: string): BuildOptions {
  return { entryPoints: ['gpt-tokenizer'], outfile, bundle: true, platform: 'node', target: LAMBDA_BUNDLE.target, format: 'esm', minify: true, legalComments: 'none', logLevel: 'warning' };
}

/** Every function folder with a handler.ts. */
export function functionNames(functionsDir = 'functions'): string[] {
  return readdirSync(functionsDir).filter((name) => existsSync(join(functionsDir, name, 'handler.ts')));
}

export async function buildFunctions(outRoot = 'dist', names = functionNames()): Promise<BuiltFunction[]> {
  rmSync(outRoot, { recursive: true, force: true });
  const results: BuiltFunction[] = [];
  const tokenizer = join(outRoot, TOKENIZER_FILE);
  await build(tokenizerBuildOptions(tokenizer));
  for (const name of names) {
    const file = join(outRoot, name, LAMBDA_BUNDLE.outputFile);
    const { metafile } = await build(esbuildOptions(join('functions', name, 'handler.ts'), file));
    // Loaded on first use (shared/tokenizer.ts, GW_TOKENIZER_MODULE), so it never weighs on a cold start.
    copyFileSync(tokenizer, join(outRoot, name, TOKENIZER_FILE));
    results.push({ name, file, bytes: statSync(file).size, budgetKiB: bundleBudgetKiB(name), byPackage: bytesByPackage(metafile, file), externalImports: externalImportsOf(metafile, file) });
  }
  return results;
}

function bytesByPackage(metafile: Metafile | undefined, file: string): BuiltFunction['byPackage'] {
  const output = outputOf(metafile, file);
  const totals = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const source = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(own code)';
    totals.set(source, (totals.get(source) ?? 0) + bytesInOutput);
  }
  return [...totals.entries()].map(([source, bytes]) => ({ source, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** The metafile's entry for `file`: its keys are relative to the working directory, `file` may be absolute. */
function outputOf(metafile: Metafile | undefined, file: string): Metafile['outputs'][string] | undefined {
  return Object.entries(metafile?.outputs ?? {}).find(([path]) => resolve(path) === resolve(file))?.[1];
}

function externalImportsOf(metafile: Metafile | undefined, file: string): BuiltFunction['externalImports'] {
  const output = outputOf(metafile, file);
  const external = (output?.imports ?? []).filter((entry) => entry.external);
  const unique = (kind: string) => [...new Set(external.filter((entry) => entry.kind === kind).map((entry) => entry.path))];
  return { staticImports: unique('import-statement'), dynamicImports: unique('dynamic-import') };
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

if (import.meta.url === `file://${process.argv[1]}`) {
  const analyze = process.argv.includes('--analyze');
  const checkBudget = process.argv.includes('--check-budget');
  const results = await buildFunctions();
  let overBudget = false;
  for (const { name, file, bytes, budgetKiB, byPackage } of results) {
    const over = bytes > budgetKiB * 1024;
    overBudget ||= over;
    console.log(`${name.padEnd(16)} ${kib(bytes).padStart(8)} KiB  (budget ${budgetKiB} KiB${over ? ', OVER' : ''})  ${file}`);
    if (analyze) for (const { source, bytes: size } of byPackage.slice(0, 12)) console.log(`    ${kib(size).padStart(8)} KiB  ${source}`);
  }
  if (overBudget && checkBudget) process.exitCode = 1;
}
