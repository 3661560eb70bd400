import type { LoadResult } from '../measure/load.js';
import { PHASES } from '../options.js';
import { awsShapedSection, issue23Section, issue34Section, issue48Section, semanticScaleSection, soakSection, table } from './markdown-sections.js';
import type { BenchResults, FeatureRow } from './results.js';

const ms = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(3));
const signed = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}`);
const integer = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? 'n/a' : Math.round(value).toLocaleString('en-US'));
const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function machineLine(results: BenchResults): string {
  const { machine, loadAverage } = results.meta;
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  return `${machine.cpu} × ${machine.logicalCpus} logical CPUs, ${(machine.memoryBytes / 1024 ** 3).toFixed(1)} GiB RAM, ${machine.os}, ${nodeText(results)}; load average ${load(loadAverage.start)} at start, ${load(loadAverage.end)} at end`;
}

/** Which Node ran the measured processes and which the harness (one Node for both in results from before `--node`). */
export function nodeText(results: BenchResults): string {
  const runtime = results.meta.runtime;
  if (!runtime) return `Node ${results.meta.machine.node}`;
  const { measured, harness } = runtime;
  const how = measured.source === 'harness' ? (measured.requested === 'lambda' && measured.note ? 'the harness’s own, standing in for the Lambda runtime’s' : 'the harness’s own') : measured.source === 'path' ? measured.path : `the Lambda runtime’s major, from the ${measured.source}`;
  return `measured processes on Node ${measured.version} (${how}), harness on Node ${harness.version}`;
}

/** gw with one policy, a saved config and a cache lookup on every request, beside plain gw at the same connections. */
function featureLoadTable(results: BenchResults): string[] {
  const rows = results.throughputFeatures ?? [];
  if (rows.length === 0) return [];
  const plain = results.throughput.find((row) => row.upstream === 'fast' && row.connections === rows[0].connections)?.gw;
  const cpu = (result: LoadResult) => `${integer(result.cpuMicrosPerRequestMain)} (${integer(result.cpuMicrosPerRequest)})`;
  return [
    `Every request with one matching rate-limit policy (limit 10⁹ rpm), a saved config (\`x-gw-config: <id>\`) with \`cache: {mode: "simple"}\`; a hit sends the same body every time, a miss a unique body (autocannon's \`idReplacement\`). Fast upstream, ${rows[0].connections} connections; plain gw from the table above.`,
    '',
    ...table(
      ['gw request', 'req/s', 'p99 ms', 'gw CPU µs/req (gw and its children)', 'provider calls over the variant’s runs'],
      [
        ...(plain ? [['plain (a key, no policy, no config)', integer(plain.requestsPerSecond), `${plain.latencyP99Ms}`, cpu(plain), '–']] : []),
        ...rows.map((row) => [row.name, integer(row.gw.requestsPerSecond), `${row.gw.latencyP99Ms}`, cpu(row.gw), integer(row.upstreamCalls)]),
      ],
    ),
    '',
  ];
}

function loadCells(result: LoadResult): string[] {
  return [integer(result.requestsPerSecond), `${result.latencyP99Ms}`];
}

function featureCells(row: FeatureRow): string[] {
  if (row.status !== 'measured') return [row.status === 'error' ? `**error**: ${row.reason ?? ''}` : `not yet available: ${row.reason ?? ''}`, '–', '–', '–', '–', '–'];
  return [
    row.note ? `measured (${row.note})` : 'measured',
    integer(row.samples),
    signed(row.addedVsDirect?.p50),
    signed(row.addedVsDirect?.p99),
    signed(row.addedVsPlainGw?.p50),
    signed(row.addedVsPlainGw?.p99),
  ];
}

/** The Markdown table README quotes: one section per measurement, then the targets and the errors. */
export function renderMarkdown(results: BenchResults): string {
  const { meta } = results;
  const lines: string[] = [
    `# gw benchmark — ${meta.date.slice(0, 10)}`,
    '',
    `Run ${meta.date} (${meta.plan}${meta.phases.length < PHASES.length ? `; phases: ${meta.phases.join(', ')}` : ''}${meta.commit ? `; commit ${meta.commit}` : ''}), ${meta.durationSeconds} s.`,
    `Machine: ${machineLine(results)}.`,
    `gw: \`${meta.gw.command}\`, ${Object.entries(meta.gw.settings).map(([name, value]) => `${name}=${value}`).join(', ')}.`,
  ];
  if (Object.keys(meta.gw.extraSettings).length > 0) {
    lines.push(`**Investigation settings (not the default configuration):** ${Object.entries(meta.gw.extraSettings).map(([name, value]) => `${name}=${value}`).join(', ')}.`);
  }
  if (meta.tenant) lines.push(`Caller: ${meta.tenant}.`);
  lines.push('', results.errors.length > 0 ? `**This run saw ${results.errors.length} error(s): its numbers are not valid (see Errors).**` : 'No errors.', '');

  if (results.latency.length > 0) {
    lines.push('## 1. Added latency (sequential, one keep-alive connection per path, ms)', '');
    lines.push(
      ...table(
        ['request', 'samples', 'direct p50', 'gw p50', 'gw added p50', 'gw added p90', 'gw added p99', 'minimal proxy added p50 / p99', 'Portkey added p50 / p99', 'new upstream connections'],
        results.latency.map((row) => [
          row.name + (row.truncated ? ' (time limit)' : ''),
          integer(row.samples),
          ms(row.direct.p50),
          ms(row.gw.p50),
          signed(row.added.p50),
          signed(row.added.p90),
          signed(row.added.p99),
          row.proxyAdded ? `${signed(row.proxyAdded.p50)} / ${signed(row.proxyAdded.p99)}` : '–',
          row.portkeyAdded ? `${signed(row.portkeyAdded.p50)} / ${signed(row.portkeyAdded.p99)}` : '–',
          row.upstreamConnections === undefined ? '–' : integer(row.upstreamConnections),
        ]),
      ),
      '',
    );
  }

  if (results.throughput.length > 0) {
    lines.push('## 2. Throughput (autocannon, closed loop)', '');
    lines.push(
      ...table(
        ['upstream', 'connections', 'direct req/s', 'direct p99 ms', 'gw req/s', 'gw p99 ms', 'gw / direct', 'gw + children CPU µs/req (gw alone)', 'minimal proxy req/s', 'minimal proxy CPU µs/req', 'Portkey req/s', 'Portkey CPU µs/req', 'mock CPU µs/req'],
        results.throughput.map((row) => [
          row.upstream === 'fast' ? 'fast' : '20 ms',
          String(row.connections),
          ...loadCells(row.direct),
          ...loadCells(row.gw),
          `${(row.ratio * 100).toFixed(1)} %`,
          `${integer(row.gw.cpuMicrosPerRequest)} (${integer(row.gw.cpuMicrosPerRequestMain)})`,
          row.proxy ? integer(row.proxy.requestsPerSecond) : '–',
          row.proxy ? integer(row.proxy.cpuMicrosPerRequest) : '–',
          row.portkey ? integer(row.portkey.requestsPerSecond) : '–',
          row.portkey ? integer(row.portkey.cpuMicrosPerRequest) : '–',
          integer(row.direct.cpuMicrosPerRequest),
        ]),
      ),
      '',
    );
  }

  lines.push(...featureLoadTable(results));

  const { process: stats } = results;
  if (stats.logLines > 0 || stats.peakRssBytes !== undefined || results.connectionReuse) {
    lines.push('## 3. gw process', '');
    lines.push(
      ...table(
        ['measure', 'value'],
        [
          ['CPU per request of gw and its children, sequential JSON', stats.cpuMicrosPerRequestSequential === undefined ? 'n/a' : `${integer(stats.cpuMicrosPerRequestSequential)} µs`],
          ...results.throughput.map((row) => [`CPU per request, ${row.upstream === 'fast' ? 'fast' : '20 ms'} upstream, ${row.connections} connections`, row.gw.cpuMicrosPerRequest === undefined ? 'n/a' : `${integer(row.gw.cpuMicrosPerRequest)} µs`]),
          ...(results.connectionReuse
            ? [[
                `new upstream connections for ${results.connectionReuse.requests} streamed requests whose body ends ${results.connectionReuse.trailingEndMs} ms after [DONE] (direct / gw)`,
                `${results.connectionReuse.directConnections} / ${results.connectionReuse.gwConnections}`,
              ]]
            : []),
          ['RSS after start', mib(stats.rssAfterStartBytes)],
          ['RSS after the latency phase', mib(stats.rssAfterLatencyBytes)],
          ['RSS at the end', mib(stats.rssAtEndBytes)],
          ['RSS of gw and its children (the store process): after start / at the end', `${mib(stats.treeRssAfterStartBytes)} / ${mib(stats.treeRssAtEndBytes)} (children at the end ${mib(stats.childrenRssAtEndBytes)})`],
          ['peak RSS (VmHWM)', mib(stats.peakRssBytes)],
          ['log lines written (of which "request completed")', `${integer(stats.logLines)} (${integer(stats.requestCompletedLines)})`],
          ['answers other than 200, from the log (the rate-limit probe expects one 429)', Object.entries(stats.failedRequests ?? {}).map(([key, count]) => `${key}: ${count}`).join(', ') || 'none'],
        ],
      ),
      '',
    );
  }

  if (results.features.length > 0) {
    lines.push('## 4. Features on the hot path (sequential, ms; added = p50/p99 of the feature path minus the other path)', '');
    lines.push(
      ...table(
        ['scenario', 'status', 'samples', 'vs direct p50', 'vs direct p99', 'vs plain gw p50', 'vs plain gw p99'],
        results.features.map((row) => [row.name, ...featureCells(row)]),
      ),
      '',
    );
  }

  if (results.coldStart.rows.length > 0 || results.coldStart.freshness) {
    lines.push('## 5. Cold start (fresh `node` process per import; median of runs)', '');
    if (results.coldStart.freshness) lines.push(`**${results.coldStart.freshness}**`, '');
    if (results.coldStart.buildComplaint) lines.push(results.coldStart.buildComplaint, '');
    lines.push(
      ...table(
        ['bundle', 'minified', 'build budget', 'gzip', 'shipped (all files)', 'loaded by a cold import', 'import median ms', 'min', 'max', 'process start + import ms', 'runs'],
        results.coldStart.rows.map((row) => [
          row.file,
          kib(row.bytes),
          row.budgetKiB === undefined ? '–' : `${row.budgetKiB} KiB${row.bytes > row.budgetKiB * 1024 ? ' (over)' : ''}`,
          kib(row.gzipBytes),
          row.totalBytes === undefined ? '–' : `${kib(row.totalBytes)} in ${row.files?.length ?? '?'} files`,
          row.loadedBytes === undefined ? '–' : `${kib(row.loadedBytes)} in ${row.files?.filter((file) => file.loadedOnImport).length ?? '?'} files`,
          row.importMs.median.toFixed(1),
          row.importMs.min.toFixed(1),
          row.importMs.max.toFixed(1),
          row.processMs.median.toFixed(1),
          String(row.runs),
        ]),
      ),
      '',
    );
  }

  const importProfiles = Object.entries(results.coldStart.profiles ?? {});
  if (importProfiles.length > 0) {
    lines.push('Where the import time goes (one profiled import per bundle, self time by origin through the source map):', '');
    for (const [bundle, summary] of importProfiles) {
      lines.push(`- ${bundle}: ${summary.byOrigin.slice(0, 6).map((entry) => `${entry.name} ${entry.percent} %`).join(', ')}`);
    }
    lines.push('');
  }

  lines.push(...soakSection(results), ...awsShapedSection(results), ...semanticScaleSection(results));

  if (results.targets.length > 0) {
    lines.push('## Targets', '');
    lines.push(...table(['target', 'measured', ''], results.targets.map((row) => [row.target, row.measured, row.status === 'met' ? 'met' : row.status === 'missed' ? '**missed**' : 'n/a'])), '');
  }

  lines.push(...issue23Section(results), ...issue34Section(results), ...issue48Section(results));

  if (results.profile) {
    lines.push(`## gw CPU profile (${results.profile.window ?? 'whole process life'})`, '');
    lines.push(...table(['origin (self time)', 'ms', '%'], results.profile.byOrigin.slice(0, 10).map((entry) => [entry.name, String(entry.ms), `${entry.percent}`])), '');
    lines.push(...table(['gw function (inclusive time)', 'ms', '%'], results.profile.projectInclusive.slice(0, 15).map((entry) => [entry.name, String(entry.ms), `${entry.percent}`])), '');
  }

  if (results.notes.length > 0) lines.push('## Notes', '', ...results.notes.map((note) => `- ${note}`), '');
  lines.push('## Errors', '', ...(results.errors.length > 0 ? results.errors.map((error) => `- ${error.split('\n')[0].slice(0, 600)}`) : ['none']), '');
  return lines.join('\n');
}
