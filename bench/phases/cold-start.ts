import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { LAMBDA_NODE_RUNTIME_NAME } from '../../infra/cdk/lambda-node.js';
import { median } from '../measure/stats.js';
import { summarizeProfile, type ProfileSummary } from '../profile/summarize.js';
import type { ChildRegistry } from '../processes/children.js';
import { childEnvironment } from '../processes/launch.js';
import type { ColdStartRow } from '../report/results.js';

/**
 * Runs in each fresh node process: what the Lambda runtime provides before it loads a streaming handler
 * (`awslambda.streamifyResponse`, which middy calls at import), then the timed `await import()`.
 */
const IMPORT_SCRIPT = `
globalThis.awslambda ??= { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
const started = process.hrtime.bigint();
const module = await import(process.env.BENCH_BUNDLE_URL);
const importMs = Number(process.hrtime.bigint() - started) / 1e6;
if (typeof module.handler !== 'function') throw new Error('the bundle exports no handler function');
process.stdout.write(JSON.stringify({ importMs }));
`;

/**
 * One more, untimed import per bundle with a module `load` hook (node:module `register`) that reports every
 * file the import loads: with a bundle split into an entry and lazily loaded siblings (code-splitting chunks,
 * gpt-tokenizer.mjs, a JSON price table), what a cold start loads differs from what the folder holds.
 */
const LOAD_HOOKS = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) port.postMessage(url);
  return nextLoad(url, context);
}
`;
const TRACE_SCRIPT = `
globalThis.awslambda ??= { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
const { register } = await import('node:module');
const { MessageChannel } = await import('node:worker_threads');
const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loaded.add(url));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(LOAD_HOOKS)}), { data: { port: port2 }, transferList: [port2] });
await import(process.env.BENCH_BUNDLE_URL);
// The hook thread's last messages arrive asynchronously.
await new Promise((resolve) => setTimeout(resolve, 100));
port1.close();
process.stdout.write(JSON.stringify({ loaded: [...loaded] }));
`;

/** The environment a deployed function has: region, credentials, table names (fake values, nothing is called). */
function lambdaEnvironment(functionName: string, bundleUrl: string, taskRoot: string): NodeJS.ProcessEnv {
  return childEnvironment({
    BENCH_BUNDLE_URL: bundleUrl,
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'ASIABENCHBENCHBENCH00',
    AWS_SECRET_ACCESS_KEY: 'bench-secret-access-key-not-real',
    AWS_SESSION_TOKEN: 'bench-session-token-not-real',
    AWS_EXECUTION_ENV: `AWS_Lambda_${LAMBDA_NODE_RUNTIME_NAME}`,
    AWS_LAMBDA_FUNCTION_NAME: `gw-${functionName}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/gw-${functionName}`,
    LAMBDA_TASK_ROOT: taskRoot,
    TZ: ':UTC',
    GW_TABLE_MAIN: 'gw-main',
    GW_TABLE_CACHE: 'gw-cache',
    GW_TABLE_LOGS: 'gw-logs',
    GW_SECRET_STORE: 'secrets-manager',
    POWERTOOLS_SERVICE_NAME: `gw-${functionName}`,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    POWERTOOLS_METRICS_NAMESPACE: 'gw',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
}

export interface BuildOutcome {
  /** Budgets `npm run build` printed, KiB per function (it prints `name  size KiB  (budget N KiB[, OVER])`). */
  budgetsKiB: Record<string, number>;
  /** What the build said when it exited non-zero although every bundle was written (a bundle over its budget). */
  complaint?: string;
}

/**
 * `npm run build` (scripts/build.ts) in its own process: the bundles measured are the bundles deployed. A bundle
 * over its size budget makes the build exit non-zero; for the bench that is a number to report, not an error,
 * so the build counts as failed only when a function's bundle was not written.
 */
export async function buildBundles(registry: ChildRegistry, root: string): Promise<BuildOutcome> {
  const startedMs = Date.now();
  const { exit, stderr, stdout } = await registry.run(
    { name: 'npm run build', runtime: 'harness', nodeArgs: ['--import', 'tsx', 'scripts/build.ts'], cwd: root, env: childEnvironment({}) },
    300_000,
  );
  const budgetsKiB: Record<string, number> = {};
  for (const match of stdout.matchAll(/^(\S+)\s+[\d.]+ KiB\s+\(budget (\d+) KiB/gm)) budgetsKiB[match[1]] = Number(match[2]);
  if (exit.code === 0) return { budgetsKiB };
  const functions = readdirSync(join(root, 'functions')).filter((name) => existsSync(join(root, 'functions', name, 'handler.ts')));
  const missing = functions.filter((name) => {
    const file = join(root, 'dist', name, 'index.mjs');
    return !existsSync(file) || statSync(file).mtimeMs < startedMs - 1_000;
  });
  if (missing.length > 0) throw new Error(`npm run build failed (code ${exit.code}; no fresh bundle for ${missing.join(', ')}): ${(stderr || stdout).slice(-3000)}`);
  return { budgetsKiB, complaint: `npm run build exited ${exit.code}: ${stdout.trim().split('\n').filter((line) => /OVER|error/i.test(line)).join('; ') || stderr.slice(-500)}` };
}

/** Every file of a bundle's folder except source maps: what the function ships. */
function shippedFiles(directory: string): Array<{ path: string; bytes: number }> {
  const files: Array<{ path: string; bytes: number }> = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith('.map')) files.push({ path, bytes: statSync(path).size });
    }
  };
  walk(directory);
  return files;
}

/** The files of `directory` a cold import loads (traced in one more process), with their bytes. */
async function filesLoadedOnImport(registry: ChildRegistry, root: string, name: string, url: string): Promise<string[]> {
  const directory = resolve(root, 'dist', name);
  const { exit, stdout, stderr } = await registry.run(
    { name: `traced import ${name}`, runtime: 'measured', nodeArgs: ['--input-type=module', '--eval', TRACE_SCRIPT], cwd: directory, env: lambdaEnvironment(name, url, directory) },
    60_000,
  );
  if (exit.code !== 0) throw new Error(`traced import failed (code ${exit.code}): ${stderr.slice(-1000)}`);
  const { loaded } = JSON.parse(stdout) as { loaded: string[] };
  return loaded.map((file) => fileURLToPath(file)).filter((path) => path.startsWith(`${directory}/`) || path === directory);
}

export function listBundles(root: string): Array<{ name: string; file: string }> {
  const dist = join(root, 'dist');
  if (!existsSync(dist)) return [];
  return readdirSync(dist)
    .map((name) => ({ name, file: join(dist, name, 'index.mjs') }))
    .filter((bundle) => existsSync(bundle.file))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Says why dist/ may not match the sources (for --no-build), or undefined when it is newer than all of them. */
export function distFreshness(root: string): string | undefined {
  const bundles = listBundles(root);
  if (bundles.length === 0) return 'dist/ holds no bundles: run npm run build';
  const oldestBundle = Math.min(...bundles.map((bundle) => statSync(bundle.file).mtimeMs));
  const newestSource = Math.max(...['functions', 'shared', 'package-lock.json', 'scripts'].map((path) => newestMtime(join(root, path))));
  return newestSource > oldestBundle ? 'dist/ is older than the sources: the bundles measured may not be the current code' : undefined;
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/**
 * Size and fresh-process import time of every bundle in dist/; the median of `runs` imports. With a
 * `profileDir`, one more import of each bundle runs under `--cpu-prof`, summarised through the bundle's source
 * map (which package's initialisation the time goes to).
 */
export async function measureColdStart(
  registry: ChildRegistry,
  root: string,
  runs: number,
  errors: string[],
  profileDir?: string,
): Promise<{ rows: ColdStartRow[]; profiles: Record<string, ProfileSummary> }> {
  const rows: ColdStartRow[] = [];
  const profiles: Record<string, ProfileSummary> = {};
  for (const bundle of listBundles(root)) {
    const content = readFileSync(bundle.file);
    const url = pathToFileURL(resolve(bundle.file)).href;
    const importTimes: number[] = [];
    const processTimes: number[] = [];
    const bundleProfileDir = profileDir ? join(profileDir, `import-${bundle.name}`) : undefined;
    try {
      for (let run = 0; run < runs + (bundleProfileDir ? 1 : 0); run++) {
        const profiling = bundleProfileDir !== undefined && run === runs;
        const started = process.hrtime.bigint();
        const { exit, stdout, stderr } = await registry.run(
          {
            name: `import ${bundle.name}`,
            // The import is what a cold start costs on the Lambda's Node.
            runtime: 'measured',
            nodeArgs: [...(profiling ? ['--cpu-prof', `--cpu-prof-dir=${bundleProfileDir}`] : []), '--input-type=module', '--eval', IMPORT_SCRIPT],
            cwd: join(root, 'dist', bundle.name),
            env: lambdaEnvironment(bundle.name, url, resolve(root, 'dist', bundle.name)),
          },
          60_000,
        );
        if (exit.code !== 0) throw new Error(`import failed (code ${exit.code}): ${stderr.slice(-2000)}`);
        // The profiled import is slower (the profiler runs too): it is summarised, not timed.
        if (profiling) continue;
        processTimes.push(Number(process.hrtime.bigint() - started) / 1e6);
        importTimes.push((JSON.parse(stdout) as { importMs: number }).importMs);
      }
      if (bundleProfileDir) {
        const file = readdirSync(bundleProfileDir).find((name) => name.endsWith('.cpuprofile'));
        if (file) profiles[bundle.name] = summarizeProfile(join(bundleProfileDir, file), 15);
      }
    } catch (error) {
      errors.push(`cold start, ${bundle.name}: ${(error as Error).message}`);
      continue;
    }
    const shipped = shippedFiles(join(root, 'dist', bundle.name));
    let loaded: string[] | undefined;
    try {
      loaded = await filesLoadedOnImport(registry, root, bundle.name, url);
    } catch (error) {
      errors.push(`cold start, ${bundle.name}: ${(error as Error).message}`);
    }
    rows.push({
      totalBytes: shipped.reduce((sum, file) => sum + file.bytes, 0),
      files: shipped.map((file) => ({ file: relative(join(root, 'dist', bundle.name), file.path), bytes: file.bytes, loadedOnImport: loaded?.includes(resolve(file.path)) })),
      loadedBytes: loaded === undefined ? undefined : shipped.filter((file) => loaded.includes(resolve(file.path))).reduce((sum, file) => sum + file.bytes, 0),
      bundle: bundle.name,
      file: `dist/${bundle.name}/index.mjs`,
      bytes: content.length,
      gzipBytes: gzipSync(content).length,
      runs,
      importMs: { median: median(importTimes), min: Math.min(...importTimes), max: Math.max(...importTimes) },
      processMs: { median: median(processTimes) },
    });
  }
  if (rows.length === 0 && errors.length === 0) errors.push('cold start: no bundle found in dist/');
  return { rows, profiles };
}
