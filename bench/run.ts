import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryOf } from './measure/proc-stats.js';
import { treeMemory } from './measure/proc-tree.js';
import { DEFAULT_CACHE_DIR, resolveMeasuredNode, type MeasuredNode } from './node/measured-node.js';
import { parseOptions, resultName, UsageError, type BenchOptions } from './options.js';
import type { PhaseContext } from './phases/context.js';
import { buildBundles, distFreshness, measureColdStart } from './phases/cold-start.js';
import { measureFeatures } from './phases/features.js';
import { measureConnectionReuse, type ConnectionReuse } from './phases/connection-reuse.js';
import { measureAddedLatency } from './phases/latency.js';
import { measureAwsShaped } from './phases/aws-shaped.js';
import { runSemanticScalePhase } from './phases/semantic-scale-run.js';
import { formatSoak, measureSoak, type SoakResult } from './phases/soak.js';
import { measureThroughput } from './phases/throughput.js';
import { FEATURE_LOAD_CONNECTIONS, measureFeatureThroughput } from './phases/throughput-features.js';
import { ChildRegistry } from './processes/children.js';
import { compileGwForProfiling } from './processes/compile-gw.js';
import { PORTKEY_SETTINGS, PORTKEY_VERSION, preparePortkey, type PortkeyProcess } from './processes/portkey.js';
import { BENCH_ADMIN_KEY, gwCommand, startGw, startMock, startReferenceProxy, type GwLaunchOptions, type GwProcess } from './processes/launch.js';
import { formatProfileSummary, summarizeProfile, type ProfileSummary } from './profile/summarize.js';
import { renderMarkdown } from './report/markdown.js';
import type { AwsShapedResult, BenchResults, ColdStartRow, FeatureLoadRow, FeatureRow, LatencyRow, PortkeyRun, ProcessStats, SemanticScaleRow, ThroughputRow } from './report/results.js';
import { evaluateIssue23, evaluateIssue34, evaluateTargets } from './report/targets.js';
import { evaluateIssue48 } from './report/issue48.js';
import { readmeBlock, replaceReadmeBlock } from './report/readme-block.js';
import { createBenchWorkspaceAndKey } from './scenarios/tenant.js';

/**
 * `npm run bench`: gw against the direct path, side by side, in one run. See bench/README.md for the method.
 * Progress goes to stderr; the Markdown table goes to stdout and, with the JSON, to bench/results/.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const GW_SETTINGS = { GW_DATA_DIR: ':memory:', POWERTOOLS_LOG_LEVEL: 'INFO', GW_REQUEST_LOGS: 'ON', stdout: 'pipe drained by the harness' };

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

function commitDescription(): string | undefined {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', timeout: 5_000 }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8', timeout: 5_000 }).trim() !== '';
    return dirty ? `${commit} with uncommitted changes` : commit;
  } catch {
    return undefined;
  }
}

/** Stops every child on every way out: normal end, error, Ctrl-C, SIGTERM, and (synchronously) process exit. */
function installCleanup(registry: ChildRegistry): void {
  const onSignal = (signal: NodeJS.Signals) => {
    progress(`${signal}: stopping the processes the bench started`);
    void registry.stopAll(3_000).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', () => registry.killAllNow());
  process.once('uncaughtException', (error) => {
    progress(`uncaught error: ${error.stack ?? error.message}`);
    registry.killAllNow();
    process.exit(1);
  });
}

/** Filled in as the phases run, so what was measured before a failure is still reported. */
interface Collected {
  gw?: GwProcess;
  mock?: Awaited<ReturnType<typeof startMock>>;
  gwLaunch: GwLaunchOptions;
  /** process.hrtime in µs when measuring began (the CPU profile summary leaves out start-up before it). */
  measuringFromMicros?: number;
  latency: LatencyRow[];
  connectionReuse?: ConnectionReuse;
  throughput: ThroughputRow[];
  throughputFeatures?: FeatureLoadRow[];
  features: FeatureRow[];
  coldStart: ColdStartRow[];
  coldStartProfiles?: Record<string, ProfileSummary>;
  freshness?: string;
  buildComplaint?: string;
  process: ProcessStats;
  tenant?: string;
  soak?: SoakResult;
  awsShaped?: AwsShapedResult;
  semanticScale?: SemanticScaleRow[] | { unavailable: string };
  portkey?: PortkeyRun;
}

async function runPhases(options: BenchOptions, registry: ChildRegistry, collected: Collected, errors: string[], profileDir: string | undefined): Promise<void> {
  const { plan, phases } = options;
  if (phases.has('cold-start')) await coldStartPhase(options, registry, collected, errors, profileDir);
  const MAIN_GW_PHASES = ['latency', 'features', 'throughput', 'soak'] as const;
  if (MAIN_GW_PHASES.some((phase) => phases.has(phase))) await runMainGwPhases(options, registry, collected, errors, profileDir);
  if (phases.has('aws-shaped')) {
    progress(`AWS-shaped: gw against a store in its own process behind a proxy adding ${options.storeLatencyMs} ms per call`);
    const mock = collected.mock ?? (await startMock(registry, ROOT));
    try {
      collected.awsShaped = await measureAwsShaped({ root: ROOT, registry, mock, adminKey: BENCH_ADMIN_KEY, plan: plan.awsShaped, storeLatencyMs: options.storeLatencyMs, gwEnv: options.gwEnv, errors });
    } catch (error) {
      errors.push(`aws-shaped: ${(error as Error).message}`);
    }
  }
  if (phases.has('semantic-scale')) {
    progress(`semantic-cache scale: ${plan.semanticScale.sizes.join(', ')} entries`);
    collected.semanticScale = await runSemanticScalePhase(ROOT, plan.semanticScale.sizes, errors, (line) => progress(line));
  }
}

/** The phases that share the main gw (embedded store, default settings): latency, features, throughput, soak. */
async function runMainGwPhases(options: BenchOptions, registry: ChildRegistry, collected: Collected, errors: string[], profileDir: string | undefined): Promise<void> {
  const { plan, phases } = options;

  if (profileDir) {
    progress('compiling gw ahead for a CPU profile with source lines');
    collected.gwLaunch.compiledEntry = await compileGwForProfiling(registry, ROOT, profileDir);
  }
  progress('starting the mock upstream and gw');
  const mock = await startMock(registry, ROOT);
  collected.mock = mock;
  const comparing = phases.has('latency') || phases.has('throughput');
  const proxy = comparing ? await startReferenceProxy(registry, ROOT, mock.url) : undefined;
  const portkey = comparing ? await portkeyBeside(options, registry, collected, mock.url) : undefined;
  const gw = await startGw(registry, ROOT, collected.gwLaunch);
  collected.gw = gw;
  collected.process.rssAfterStartBytes = memoryOf(gw.child.pid)?.rssBytes;
  collected.process.treeRssAfterStartBytes = treeMemory(gw.child.pid)?.totalRssBytes;
  const tenant = await createBenchWorkspaceAndKey(gw.url, BENCH_ADMIN_KEY);
  collected.tenant = tenant.note;
  progress(`gw ${gw.url}, mock ${mock.url}; ${tenant.note}`);
  collected.measuringFromMicros = Number(process.hrtime.bigint() / 1000n);
  const context: PhaseContext = {
    root: ROOT,
    plan,
    registry,
    mock,
    gw,
    proxy: proxy ? { pid: proxy.child.pid } : undefined,
    portkey: portkey ? { pid: portkey.child.pid } : undefined,
    endpoints: { gwUrl: gw.url, mockUrl: mock.url, gwKey: tenant.apiKey, proxyUrl: proxy?.url, portkeyUrl: portkey?.url },
    errors,
  };

  if (phases.has('latency')) {
    progress('added latency: sequential requests, direct and through gw');
    const latency = await measureAddedLatency(context);
    collected.latency = latency.rows;
    collected.process.cpuMicrosPerRequestSequential = latency.cpuMicrosPerRequest;
    collected.process.rssAfterLatencyBytes = memoryOf(gw.child.pid)?.rssBytes;
    try {
      collected.connectionReuse = await measureConnectionReuse(context, plan.latency.connectionReuseRequests);
    } catch (error) {
      errors.push(`connection reuse: ${(error as Error).message}`);
    }
  }
  if (phases.has('features')) {
    progress('features on the hot path');
    collected.features = await measureFeatures(context, tenant, BENCH_ADMIN_KEY, options.scenarioFilter);
  }
  if (phases.has('throughput')) {
    progress(`throughput: ${plan.load.runs.map((run) => `${run.upstream}/${run.connections}c`).join(', ')}, ${plan.load.durationSeconds} s each`);
    collected.throughput = await measureThroughput(context);
    progress(`throughput with one policy, a saved config and a cache lookup (hit, miss): fast/${FEATURE_LOAD_CONNECTIONS}c`);
    collected.throughputFeatures = await measureFeatureThroughput(context, tenant, BENCH_ADMIN_KEY);
  }
  // The comparisons are done: Portkey would only take memory and CPU from the phases after them.
  await portkey?.child.stop(5_000);
  if (phases.has('soak')) {
    // The reliability soak (issue #21): 0 5xx, 0 lost charges, 0 lost logs and a flat RSS are the targets.
    progress(`soak: ${plan.soak.requests} requests at ${plan.soak.connections} connections`);
    try {
      registry.assertAlive();
      const soak = await measureSoak(context, plan.soak);
      collected.soak = soak;
      progress(formatSoak(soak));
      if (soak.fiveXx > 0 || soak.transportErrors > 0 || soak.lostCharges > 0 || soak.lostLogs > 0) errors.push(formatSoak(soak));
    } catch (error) {
      errors.push(`soak: ${(error as Error).message}`);
    }
  }
  const memory = memoryOf(gw.child.pid);
  const tree = treeMemory(gw.child.pid);
  collected.process.rssAtEndBytes = memory?.rssBytes;
  collected.process.peakRssBytes = memory?.peakRssBytes;
  collected.process.treeRssAtEndBytes = tree?.totalRssBytes;
  collected.process.childrenRssAtEndBytes = tree?.childrenRssBytes;
  // The later phases run their own processes: this gw's work is done, and it would only take memory and CPU.
  await gw.child.stop(10_000);
}

/** Portkey beside gw, unless `--no-portkey`; one that cannot be installed or started is reported, not an error. */
async function portkeyBeside(options: BenchOptions, registry: ChildRegistry, collected: Collected, mockUrl: string): Promise<PortkeyProcess | undefined> {
  if (!options.portkey) {
    collected.portkey = { version: PORTKEY_VERSION, settings: PORTKEY_SETTINGS, unavailable: 'left out (--no-portkey)' };
    return undefined;
  }
  progress(`starting Portkey's gateway ${PORTKEY_VERSION} beside gw`);
  const prepared = await preparePortkey(registry, ROOT, { gwUrl: '', gwKey: '', mockUrl }, progress);
  if ('unavailable' in prepared) {
    progress(`Portkey is not measured: ${prepared.unavailable}`);
    collected.portkey = { version: PORTKEY_VERSION, settings: PORTKEY_SETTINGS, unavailable: prepared.unavailable };
    return undefined;
  }
  collected.portkey = { version: PORTKEY_VERSION, settings: PORTKEY_SETTINGS };
  progress(`Portkey ${prepared.process.url}`);
  return prepared.process;
}

/** A build that fails stops only this phase: the other measurements do not depend on dist/. */
async function coldStartPhase(options: BenchOptions, registry: ChildRegistry, collected: Collected, errors: string[], profileDir: string | undefined): Promise<void> {
  let budgets: Record<string, number> = {};
  try {
    if (options.build) {
      progress('building the Lambda bundles (npm run build)');
      const built = await buildBundles(registry, ROOT);
      budgets = built.budgetsKiB;
      collected.buildComplaint = built.complaint;
    } else {
      collected.freshness = distFreshness(ROOT);
    }
  } catch (error) {
    errors.push(`cold start: ${(error as Error).message}`);
    return;
  }
  progress(`cold start: importing each bundle in ${options.plan.coldStart.runs} fresh processes`);
  const { rows, profiles } = await measureColdStart(registry, ROOT, options.plan.coldStart.runs, errors, profileDir);
  collected.coldStart = rows.map((row) => ({ ...row, budgetKiB: budgets[row.bundle] }));
  collected.coldStartProfiles = profileDir ? profiles : undefined;
}

/** The main thread's profile is the largest file node wrote into the directory (none if gw was killed). */
function profileSummary(profileDir: string, fromMicros: number | undefined, notes: string[]): ProfileSummary | undefined {
  try {
    const files = readdirSync(profileDir)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => join(profileDir, name))
      .sort((a, b) => statSync(b).size - statSync(a).size);
    if (files.length === 0) notes.push('gw wrote no CPU profile (it did not stop on its own within the grace period).');
    return files.length > 0 ? summarizeProfile(files[0], 30, fromMicros) : undefined;
  } catch (error) {
    notes.push(`The CPU profile could not be summarised: ${(error as Error).message}`);
    return undefined;
  }
}

function standingNotes(collected: Collected, loadStart: number[]): string[] {
  const notes = [
    'Added latency is gw minus direct per percentile (p50 of gw − p50 of direct, …) over interleaved sequential requests; the mock answers from prebuilt buffers.',
    'The minimal proxy (bench/mock/reference-proxy.ts: node:http in, undici out, nothing else) is the floor: what any extra Node hop adds on this machine.',
    'The local runtime serves its DynamoDB-compatible store (dynalite) from a child process of gw (or inside it with GW_LOCAL_STORE=in-process): gw CPU and RSS are given for gw and its child processes together (and gw alone where shown), so they include the store answering the request-log write of every request; in AWS that work is DynamoDB’s.',
    'Throughput: load generator, mock and gw share the same cores; the direct path meters the mock’s CPU, the gw path the CPU of gw and its child processes.',
  ];
  const portkey = collected.portkey;
  if (portkey) {
    notes.push(
      portkey.unavailable
        ? `Portkey’s gateway ${portkey.version} was not measured: ${portkey.unavailable}.`
        : `Portkey’s gateway (bench/processes/portkey.ts) ran beside gw on the same mock, body and connections, its own process’s CPU metered: ${portkey.settings}.`,
    );
  }
  if (loadStart[0] > os.cpus().length * 0.5) notes.push(`The machine was busy when the run started (load average ${loadStart[0].toFixed(2)} on ${os.cpus().length} CPUs): expect noisy numbers.`);
  if (collected.freshness) notes.push(collected.freshness);
  const reuse = collected.connectionReuse;
  // More than one new connection in ten requests means keep-alive is being lost after streams.
  if (reuse && reuse.gwConnections > Math.max(2, reuse.requests / 10)) {
    notes.push(
      `gw opened ${reuse.gwConnections} upstream connections for ${reuse.requests} sequential streamed requests whose body ends ${reuse.trailingEndMs} ms after [DONE] (direct: ${reuse.directConnections}): it does not keep the connection, so against a real provider each request pays a new TCP and TLS handshake.`,
    );
  }
  for (const row of collected.latency) {
    if ((row.upstreamConnections ?? 0) > 10 && row.metric === 'last byte') {
      notes.push(`${row.name}: the mock saw ${row.upstreamConnections} new connections for ${row.samples} sequential requests per path: some path does not keep its upstream connections alive.`);
    }
  }
  return notes;
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    return 2;
  }
  let measuredNode: MeasuredNode;
  try {
    measuredNode = await resolveMeasuredNode(options.node, { cacheDir: join(ROOT, DEFAULT_CACHE_DIR), log: progress });
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  progress(`measured processes on Node ${measuredNode.version} (${measuredNode.source}: ${measuredNode.path}); harness on ${process.version}`);
  if (measuredNode.note) progress(measuredNode.note);
  const startedAt = new Date();
  const loadStart = os.loadavg();
  const registry = new ChildRegistry(measuredNode.path);
  installCleanup(registry);
  const outDir = resolve(ROOT, options.outDir);
  const name = resultName(options);
  const profileDir = options.cpuProfile ? join(outDir, 'profiles', startedAt.toISOString().replace(/[:.]/g, '-')) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });

  const errors: string[] = [];
  const collected: Collected = {
    gwLaunch: { cpuProfileDir: profileDir, extraEnv: options.gwEnv },
    latency: [],
    throughput: [],
    features: [],
    coldStart: [],
    process: { logLines: 0, requestCompletedLines: 0, logErrorLines: 0 },
  };
  try {
    await runPhases(options, registry, collected, errors, profileDir);
  } catch (error) {
    errors.push(`run aborted: ${(error as Error).message}`);
  } finally {
    progress('stopping every process the bench started');
    await registry.stopAll();
  }
  for (const exit of registry.unexpectedExits()) if (!errors.some((error) => error.includes(exit.slice(0, 80)))) errors.push(exit);
  const { gw } = collected;
  if (gw) {
    collected.process.logLines = gw.logs.lines;
    collected.process.requestCompletedLines = gw.logs.requestCompleted;
    collected.process.logErrorLines = gw.logs.errors;
    collected.process.failedRequests = gw.logs.failedRequests;
    if (gw.logs.errors > 0) errors.push(`gw logged ${gw.logs.errors} ERROR line(s), e.g. ${gw.logs.errorSamples.join(' | ')}`);
    if (gw.logs.requestCompleted === 0) errors.push('gw wrote no "request completed" log line: logging was not on, or no request went through gw');
  }

  const base = {
    meta: {
      date: startedAt.toISOString(),
      plan: options.plan.name,
      phases: [...options.phases],
      machine: { cpu: os.cpus()[0]?.model ?? 'unknown CPU', logicalCpus: os.cpus().length, memoryBytes: os.totalmem(), os: `${os.type()} ${os.release()} ${os.arch()}`, node: process.version },
      // Which Node ran what was measured (gw, stores, mock, proxy, bundle imports) and which ran the harness.
      runtime: { measured: measuredNode, harness: { version: process.version, path: process.execPath } },
      loadAverage: { start: loadStart, end: os.loadavg() },
      commit: commitDescription(),
      gw: { command: gwCommand(collected.gwLaunch), settings: { ...GW_SETTINGS, ...options.gwEnv }, extraSettings: options.gwEnv },
      tenant: collected.tenant,
      durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    },
    latency: collected.latency,
    connectionReuse: collected.connectionReuse,
    throughput: collected.throughput,
    throughputFeatures: collected.throughputFeatures,
    process: collected.process,
    features: collected.features,
    soak: collected.soak,
    awsShaped: collected.awsShaped,
    semanticScale: collected.semanticScale,
    portkey: collected.portkey,
    coldStart: { built: options.build, freshness: collected.freshness, buildComplaint: collected.buildComplaint, rows: collected.coldStart, profiles: collected.coldStartProfiles },
    profile: undefined as ProfileSummary | undefined,
    errors,
    notes: [...(measuredNode.note ? [measuredNode.note] : []), ...standingNotes(collected, loadStart)],
  };
  if (profileDir) base.profile = profileSummary(profileDir, collected.measuringFromMicros, base.notes);
  const results: BenchResults = { ...base, targets: evaluateTargets(base), issue23: evaluateIssue23(base), issue34: evaluateIssue34(base), issue48: evaluateIssue48(base) };
  const markdown = renderMarkdown(results);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(outDir, `${name}.md`), markdown);
  console.log(markdown);
  if (results.profile) progress(`${formatProfileSummary(results.profile)}\n(profiles in ${profileDir})`);
  progress(`results: ${join(options.outDir, `${name}.json`)}, ${join(options.outDir, `${name}.md`)}`);
  // README quotes the latest complete run: its bench block is rewritten from it (bench/report/readme-block.ts).
  if (name === 'latest' && errors.length === 0) {
    const readme = join(ROOT, 'README.md');
    writeFileSync(readme, replaceReadmeBlock(readFileSync(readme, 'utf8'), readmeBlock(results, relative(ROOT, join(outDir, `${name}.json`)))));
    progress('README.md: bench block rewritten from this run');
  }
  if (errors.length > 0) progress(`the run saw ${errors.length} error(s): exit code 1`);
  return errors.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    progress(`failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
