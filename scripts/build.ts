import { copyFileSync, cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { buildTimeDefines, bundleBudgetKiB, LAMBDA_BUNDLE } from '../infra/cdk/bundle-options.js';
import { weighBundle, type BundleWeight, type PackageBytes } from './bundle-analysis.js';
import { lambdaBundlePlugins, PRICES_FILE, writePricesAsset } from './bundle-plugins.js';

/**
 * `npm run build`: one minified ESM bundle per Lambda under dist/<function>/ — `index.mjs`, the chunks it loads
 * (statically, or with `import()` on first use), source maps, and the data files read on first use — built with
 * the options of infra/cdk/bundle-options.ts. The CDK stack deploys exactly these directories (infra/cdk/app.ts
 * runs this build when no `prebuiltBundles` are given). `--analyze` lists what takes the space in each bundle;
 * `--check-budget` exits non-zero when a cold start loads more than its budget (the bundle test in test/infra
 * enforces the budgets in CI); `--source-maps` adds external .map files (none by default: nothing deployed reads them).
 */

export interface BuiltFunction extends BundleWeight {
  name: string;
  /** dist/<function>/index.mjs */
  file: string;
  /** What a cold start loads (coldBytes): the size the budget limits. */
  bytes: number;
  budgetKiB: number;
  /** Cold-start bytes per npm package (or `(own code)`), largest first. */
  byPackage: PackageBytes[];
}

export interface BuildFunctionsOptions {
  /** External .map files beside each bundle and chunk (for debugging; what deploys by default has none). */
  sourceMaps?: boolean;
}

export function esbuildOptions(entry: string, outdir: string, options: BuildFunctionsOptions = {}): BuildOptions {
  return {
    entryPoints: [{ in: entry, out: LAMBDA_BUNDLE.outputFile.replace(/\.mjs$/, '') }],
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: LAMBDA_BUNDLE.splitting,
    chunkNames: LAMBDA_BUNDLE.chunkNames,
    bundle: true,
    platform: LAMBDA_BUNDLE.platform,
    target: LAMBDA_BUNDLE.target,
    format: LAMBDA_BUNDLE.format,
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: options.sourceMaps ?? LAMBDA_BUNDLE.sourcemap,
    legalComments: LAMBDA_BUNDLE.legalComments,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    define: buildTimeDefines(),
    external: [...LAMBDA_BUNDLE.external],
    plugins: lambdaBundlePlugins(),
    metafile: true,
    logLevel: 'warning',
  };
}

/** gpt-tokenizer as its own file beside each bundle (the bundles import it by a computed specifier). */
export const TOKENIZER_FILE = 'gpt-tokenizer.mjs';
export { PRICES_FILE };

export function tokenizerBuildOptions(outfile: string): BuildOptions {
  return { entryPoints: ['gpt-tokenizer'], outfile, bundle: true, platform: 'node', target: LAMBDA_BUNDLE.target, format: 'esm', minify: true, legalComments: 'none', logLevel: 'warning' };
}

/** Every function folder with a handler.ts. */
export function functionNames(functionsDir = 'functions'): string[] {
  return readdirSync(functionsDir).filter((name) => existsSync(join(functionsDir, name, 'handler.ts')));
}

/** The files read on first use (gpt-tokenizer, the price data), made once, copied beside every bundle. */
const SIBLING_FILES = [TOKENIZER_FILE, PRICES_FILE] as const;

/** Builds `names` (every function by default) of the project at `root` into `outRoot`, which it empties first. */
export async function buildFunctions(outRoot = 'dist', names?: string[], root = process.cwd(), options: BuildFunctionsOptions = {}): Promise<BuiltFunction[]> {
  outRoot = resolve(root, outRoot);
  rmSync(outRoot, { recursive: true, force: true });
  const results: BuiltFunction[] = [];
  await build({ ...tokenizerBuildOptions(join(outRoot, TOKENIZER_FILE)), absWorkingDir: root });
  await writePricesAsset(join(outRoot, PRICES_FILE));
  for (const name of names ?? functionNames(join(root, 'functions'))) {
    const outdir = join(outRoot, name);
    const file = join(outdir, LAMBDA_BUNDLE.outputFile);
    const { metafile } = await build({ ...esbuildOptions(join('functions', name, 'handler.ts'), outdir, options), absWorkingDir: root });
    for (const sibling of SIBLING_FILES) copyFileSync(join(outRoot, sibling), join(outdir, sibling));
    const weight = weighBundle(metafile!, file, root);
    results.push({ name, file, bytes: weight.coldBytes, budgetKiB: bundleBudgetKiB(name), byPackage: weight.coldByPackage, ...weight });
  }
  for (const sibling of SIBLING_FILES) rmSync(join(outRoot, sibling));
  return results;
}

/**
 * The control-plane function serves the web console from `console/` beside its bundle (GW_CONSOLE_DIR), built
 * by scripts/build-console.ts into dist/console; without it the console answers 503 `console_not_built`.
 */
export function copyConsoleInto(outRoot: string, consoleBuild = join('dist', 'console')): boolean {
  if (!existsSync(consoleBuild) || !existsSync(join(outRoot, 'control-plane'))) return false;
  cpSync(consoleBuild, join(outRoot, 'control-plane', 'console'), { recursive: true });
  return true;
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

if (import.meta.url === `file://${process.argv[1]}`) {
  const analyze = process.argv.includes('--analyze');
  const checkBudget = process.argv.includes('--check-budget');
  const results = await buildFunctions('dist', undefined, process.cwd(), { sourceMaps: process.argv.includes('--source-maps') });
  let overBudget = false;
  for (const { name, file, bytes, totalBytes, coldFiles, budgetKiB, byPackage, totalByPackage } of results) {
    const over = bytes > budgetKiB * 1024;
    overBudget ||= over;
    // `<name>  <cold-start KiB> KiB  (budget …)` first: the bench reads the budgets from these lines.
    console.log(
      `${name.padEnd(16)} ${kib(bytes).padStart(8)} KiB  (budget ${budgetKiB} KiB${over ? ', OVER' : ''})  cold start: ${coldFiles.length} file(s); all chunks ${kib(totalBytes)} KiB  ${relative(process.cwd(), file)}`,
    );
    if (!analyze) continue;
    const total = new Map(totalByPackage.map(({ source, bytes: size }) => [source, size]));
    console.log(`    ${'cold'.padStart(8)}      ${'total'.padStart(8)}`);
    for (const { source, bytes: size } of byPackage.slice(0, 14)) console.log(`    ${kib(size).padStart(8)} KiB  ${kib(total.get(source) ?? 0).padStart(8)} KiB  ${source}`);
    const lazyOnly = totalByPackage.filter(({ source }) => !byPackage.some((cold) => cold.source === source)).slice(0, 8);
    for (const { source, bytes: size } of lazyOnly) console.log(`    ${'-'.padStart(8)}      ${kib(size).padStart(8)} KiB  ${source} (loaded on first use)`);
  }
  if (overBudget && checkBudget) process.exitCode = 1;
}
