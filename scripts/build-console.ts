import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

/**
 * The console's bundle budget (minified JavaScript + CSS), checked by the build and by a test in CI. Round 2 (issue
 * #46: the logs explorer, a readable request, editing forms) raised it from 240 KiB; what a first load fetches keeps
 * its own, unchanged budget below, and the pages that need more load it on first use.
 */
export const CONSOLE_BUDGET_KIB = 280;
/** What the first page load needs (the entry script and CSS); the config schema loads with the Configs page. */
export const CONSOLE_ENTRY_BUDGET_KIB = 120;

export interface BuiltConsole {
  dir: string;
  js: string;
  css: string;
  /** Every asset. */
  bytes: number;
  /** The entry script and its CSS: what the first page load fetches. */
  entryBytes: number;
}

/**
 * Builds the web console (console/, Preact + uPlot) into `<out>/index.html` and content-hashed assets under
 * `<out>/assets/`, which gw serves at /console with long-lived cache headers (the HTML itself is never cached).
 */
export async function buildConsole(out = 'dist/console'): Promise<BuiltConsole> {
  rmSync(out, { recursive: true, force: true });
  const assets = join(out, 'assets');
  mkdirSync(assets, { recursive: true });
  const result = await build({
    entryPoints: { app: 'console/src/main.tsx' },
    outdir: assets,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    splitting: true,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).filter((file) => !file.endsWith('.map'));
  const js = basename(outputs.find((file) => /\/app-[^/]+\.js$/.test(file))!);
  const css = basename(outputs.find((file) => file.endsWith('.css'))!);
  const html = readFileSync('console/index.html', 'utf8').replace('__JS__', js).replace('__CSS__', css);
  writeFileSync(join(out, 'index.html'), html);
  const bytes = outputs.reduce((sum, file) => sum + statSync(file).size, 0);
  const entryBytes = statSync(join(assets, js)).size + statSync(join(assets, css)).size;
  return { dir: out, js, css, bytes, entryBytes };
}

/**
 * Builds the console into `out` unless a build is there (`npm start`, and `cdk deploy` from a fresh clone, so the
 * console never answers 503 `console_not_built`). The build goes to a folder of its own and is renamed into place,
 * so two processes building at once never see or remove each other's half-written build.
 */
export async function ensureConsoleBuilt(out = 'dist/console'): Promise<void> {
  if (existsSync(join(out, 'index.html'))) return;
  const staging = `${out}.building-${process.pid}`;
  await buildConsole(staging);
  try {
    if (existsSync(out) && !existsSync(join(out, 'index.html'))) rmSync(out, { recursive: true, force: true });
    renameSync(staging, out);
  } catch (error) {
    // Another process put its build there first: that one serves.
    if (!existsSync(join(out, 'index.html'))) throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const built = await buildConsole();
  // `npm run build` made dist/control-plane first: the function's prebuilt bundle carries the console beside it.
  if (existsSync('dist/control-plane')) cpSync(built.dir, 'dist/control-plane/console', { recursive: true });
  const kib = built.bytes / 1024;
  const entryKib = built.entryBytes / 1024;
  const over = kib > CONSOLE_BUDGET_KIB || entryKib > CONSOLE_ENTRY_BUDGET_KIB;
  console.log(`console         ${kib.toFixed(1).padStart(8)} KiB  (entry ${entryKib.toFixed(1)} KiB; budgets ${CONSOLE_BUDGET_KIB} / ${CONSOLE_ENTRY_BUDGET_KIB} KiB${over ? ', OVER' : ''})  ${built.dir}`);
  if (over) process.exitCode = 1;
}
