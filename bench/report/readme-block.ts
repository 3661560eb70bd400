import type { LoadResult } from '../measure/load.js';
import { nodeText } from './markdown.js';
import { table } from './markdown-sections.js';
import type { BenchResults, GoalRow, ThroughputRow } from './results.js';

/**
 * README.md's bench figures, written from one run's results (bench/results/latest.json), so that every figure README
 * quotes comes from a run it names (date, commit, Node) and refreshing them is one command after `npm run bench`:
 * `npx tsx bench/report/update-readme.ts [results.json]`. The block sits between the two markers below; everything
 * else in README is prose that names no figure.
 */
export const README_BEGIN = '<!-- bench:begin (written by bench/report/update-readme.ts from a run\'s results; edits here are overwritten) -->';
export const README_END = '<!-- bench:end -->';

const integer = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : Math.round(value).toLocaleString('en-US'));
const signedMs = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)} ms`);
const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' / ');

/** The lines README shows for a run: what ran where, the side-by-side figures, and each goal of the latest issue. */
export function readmeBlock(results: BenchResults, source: string): string[] {
  const { meta } = results;
  const lines = [
    `**Latest run:** ${meta.date.slice(0, 16).replace('T', ' ')} UTC, \`npm run bench\` (${meta.plan}${meta.phases.length < 7 ? `; phases ${meta.phases.join(', ')}` : ''}), commit ${meta.commit ?? 'unknown'}, ` +
      `${nodeText(results)}; ${meta.machine.cpu} × ${meta.machine.logicalCpus}, load average ${load(meta.loadAverage.start)} at start (1 / 5 / 15 min); ` +
      `${results.errors.length === 0 ? 'no errors' : `**${results.errors.length} error(s): the figures are not valid**`}; the whole report: \`${source}\`. ` +
      'On a shared machine every process\'s CPU per request is inflated alike: compare within the run (the minimal proxy is the scale).',
    '',
  ];
  const rows = sideBySideRows(results);
  if (rows.length > 0) lines.push(...table(['fast upstream', 'gw', 'Portkey', 'minimal proxy', 'direct'], rows), '');
  const goals = results.issue48 ?? [];
  if (goals.length > 0) lines.push('**Issue #48\'s goals in this run:**', '', ...goalTable(goals), '');
  return lines;
}

function sideBySideRows(results: BenchResults): string[][] {
  const fast = (connections: number) => results.throughput.find((row) => row.upstream === 'fast' && row.connections === connections);
  const levels = [fast(16), fast(64)].filter((row): row is ThroughputRow => row !== undefined);
  const rows: string[][] = [];
  if (levels.length > 0) {
    const at = levels.map((row) => row.connections).join(' / ');
    const each = (pick: (row: ThroughputRow) => LoadResult | undefined, value: (result: LoadResult) => number | undefined) =>
      levels.map((row) => {
        const result = pick(row);
        return result ? integer(value(result)) : '–';
      }).join(' / ');
    rows.push([`req/s at ${at} connections`, each((row) => row.gw, (r) => r.requestsPerSecond), each((row) => row.portkey, (r) => r.requestsPerSecond), each((row) => row.proxy, (r) => r.requestsPerSecond), each((row) => row.direct, (r) => r.requestsPerSecond)]);
    rows.push([
      `own CPU µs per request at ${at} connections`,
      `${each((row) => row.gw, (r) => r.cpuMicrosPerRequestMain)} (with its store process ${each((row) => row.gw, (r) => r.cpuMicrosPerRequest)})`,
      each((row) => row.portkey, (r) => r.cpuMicrosPerRequest),
      each((row) => row.proxy, (r) => r.cpuMicrosPerRequest),
      `(mock) ${each((row) => row.direct, (r) => r.cpuMicrosPerRequest)}`,
    ]);
  }
  const features = results.throughputFeatures ?? [];
  if (features.length > 0) {
    rows.push([
      `with one policy, a saved config and a cache ${features.map((row) => row.cache).join(' / ')} (${features[0]!.connections} connections)`,
      `${features.map((row) => integer(row.gw.requestsPerSecond)).join(' / ')} req/s, ${features.map((row) => integer(row.gw.cpuMicrosPerRequestMain)).join(' / ')} µs`,
      '–',
      '–',
      '–',
    ]);
  }
  for (const row of results.latency.filter((candidate) => candidate.name === 'JSON' || candidate.metric === 'first byte').slice(0, 2)) {
    rows.push([
      `added ${row.metric === 'first byte' ? 'first streamed byte' : 'last byte'} p50 / p99, sequential ${row.name} (${integer(row.samples)} samples)`,
      `${signedMs(row.added.p50)} / ${signedMs(row.added.p99)}`,
      row.portkeyAdded ? `${signedMs(row.portkeyAdded.p50)} / ${signedMs(row.portkeyAdded.p99)}` : '–',
      row.proxyAdded ? `${signedMs(row.proxyAdded.p50)} / ${signedMs(row.proxyAdded.p99)}` : '–',
      `${row.direct.p50.toFixed(2)} ms p50`,
    ]);
  }
  const gateway = results.coldStart.rows.find((row) => row.bundle === 'gateway');
  if (gateway) {
    const loaded = gateway.loadedBytes ?? gateway.bytes;
    rows.push([`gateway bundle: KiB a cold import loads, import ms (median of ${gateway.runs})`, `${(loaded / 1024).toFixed(1)} KiB, ${gateway.importMs.median.toFixed(0)} ms`, '–', '–', '–']);
  }
  return rows;
}

function goalTable(goals: GoalRow[]): string[] {
  return table(
    ['goal', 'measured', 'status'],
    goals.map((row) => [row.goal, row.measured, row.status === 'met' ? 'met' : row.status === 'missed' ? `missed${row.distance ? ` (${row.distance})` : ''}` : 'n/a']),
  );
}

/** README's text with the block between the markers replaced; throws when the markers are missing or out of order. */
export function replaceReadmeBlock(readme: string, block: string[]): string {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no ${README_BEGIN} … ${README_END} block`);
  return `${readme.slice(0, begin + README_BEGIN.length)}\n${block.join('\n')}\n${readme.slice(end)}`;
}
