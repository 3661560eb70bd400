import { FLAT_SLOPE_KIB_PER_1K, MIN_REQUESTS_TO_JUDGE } from '../phases/soak.js';
import type { BenchResults, GoalRow } from './results.js';

/** The report's sections for the soak, the AWS-shaped mode, the semantic-cache scale and issues #23's and #34's goals. */

const mib = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
const signed = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)}`);
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
}

export function soakSection(results: BenchResults): string[] {
  const soak = results.soak;
  if (!soak) return [];
  const statuses = Object.entries(soak.statusCounts).map(([status, count]) => `${status}: ${count.toLocaleString('en-US')}`).join(', ');
  const verdict =
    soak.flat === undefined ? `not judged (a soak under ${MIN_REQUESTS_TO_JUDGE.toLocaleString('en-US')} requests is still warming up)` : soak.flat ? 'flat' : '**not flat**';
  const lines = [
    `## Soak (issue #21): ${soak.requests.toLocaleString('en-US')} requests at ${soak.connections} connections, ${soak.seconds.toFixed(1)} s`,
    '',
    ...table(
      ['measure', 'target', 'value'],
      [
        ['answers by status', '–', statuses || 'none'],
        ['5xx answers', '0', String(soak.fiveXx)],
        ['requests without an answer', '0', String(soak.transportErrors)],
        ['lost charges (neither written nor journaled)', '0', String(soak.lostCharges)],
        ['lost logs (answered, no "request completed")', '0', String(soak.lostLogs)],
        ['RSS of gw and its children, start → end', '–', `${mib(soak.rssStartBytes)} → ${mib(soak.rssEndBytes)}`],
        [
          'RSS slope over the second half',
          `≤ ${FLAT_SLOPE_KIB_PER_1K} KiB per 1,000 requests`,
          `${soak.secondHalfSlopeKiBPer1k === undefined ? 'n/a' : `${soak.secondHalfSlopeKiBPer1k.toFixed(0)} KiB per 1,000 requests`}: ${verdict}`,
        ],
        [
          'of which gw alone / its children',
          '–',
          `${soak.secondHalfSlopeMainKiBPer1k?.toFixed(0) ?? 'n/a'} / ${soak.secondHalfSlopeChildrenKiBPer1k?.toFixed(0) ?? 'n/a'} KiB per 1,000 requests`,
        ],
      ],
    ),
    '',
  ];
  if (soak.rssSamples.length > 0) {
    // Every fourth sample keeps the table short; the JSON has them all.
    const shown = soak.rssSamples.filter((_, index) => index % 4 === 0 || index === soak.rssSamples.length - 1);
    lines.push(
      'RSS over time (MiB):',
      '',
      ...table(
        ['requests', 's', 'gw + children', 'gw', 'children'],
        shown.map((sample) => [sample.requests.toLocaleString('en-US'), sample.seconds.toFixed(1), mib(sample.totalBytes), mib(sample.mainBytes), mib(sample.childrenBytes)]),
      ),
      '',
    );
  }
  return lines;
}

export function awsShapedSection(results: BenchResults): string[] {
  const aws = results.awsShaped;
  if (!aws) return [];
  const lines = [
    `## AWS-shaped: store round trips before the first byte (store in its own process, +${aws.storeLatencyMs} ms per call)`,
    '',
    `gw ran against a DynamoDB-compatible store (dynalite) behind a proxy that adds ${aws.storeLatencyMs} ms to every call, with the auth, policy and virtual-key caches at ${aws.cacheTtlMs} ms for the expiry row ` +
      `${aws.warmCacheTtlMs ? `and, on a second gw, ${aws.warmCacheTtlMs / 1000} s (the virtual key's 60 s) for the warm rows, so that no background refresh runs beside a warm request and is counted as its round trip` : '(warm rows too)'}; ` +
      `it made ${aws.bootstrapCalls} store calls while starting. Round trips: calls the proxy received and answered between sending a request and its first response byte (median / max over the samples; ` +
      'a call still unanswered at the first byte was not waited for and is counted apart, as after-path work); depth: the longest chain of them that ran one after another. Each measured request follows an unmeasured one of its kind (within the TTL for warm rows, past it for the expiry row) and a quiet store. ' +
      `Added latency (issue #34): gw, the direct request and the minimal proxy's are each measured after the same idle (${aws.quietMs ?? 600} ms with nothing in flight and a quiet store), in a rotating order; ` +
      'the last column is the measure before issue #34, against a direct request sent right after the unmeasured one, while every process was awake. ' +
      `Each gw served ${aws.warmupRequests ?? 0} plain requests before its rows, as the latency phase warms up; the "fresh process" row is measured before them.`,
    '',
    ...table(
      ['scenario', 'samples', 'round trips (median / max)', 'sequential depth', 'operations per request', 'not waited for', 'added vs direct p50 / p95 ms', 'minimal proxy added p50 / p95 ms', 'direct p50 ms after idle / awake', 'added vs an awake direct p50 / p95 ms (before #34)', 'goal', ''],
      aws.rows.map((row) => {
        if (row.status !== 'measured') return [row.scenario, '–', `${row.status === 'error' ? '**error**' : row.status}: ${row.reason ?? ''}`, '–', '–', '–', '–', '–', '–', '–', `≤ ${row.goal}`, 'n/a'];
        const operations = Object.entries(row.operations ?? {})
          .map(([operation, perRequest]) => `${operation} × ${perRequest.toFixed(perRequest % 1 === 0 ? 0 : 2)}`)
          .join(', ');
        return [
          row.scenario,
          String(row.samples),
          `${row.roundTrips?.median} / ${row.roundTrips?.max}`,
          `${row.depth?.median} / ${row.depth?.max}`,
          operations || 'none',
          (row.unansweredAtFirstByte ?? 0).toFixed(2),
          `${signed(row.addedVsDirect?.p50)} / ${signed(row.addedVsDirect?.p95)}`,
          `${signed(row.proxyAddedVsDirect?.p50)} / ${signed(row.proxyAddedVsDirect?.p95)}`,
          row.directP50 ? `${row.directP50.afterIdle.toFixed(2)} / ${row.directP50.hot.toFixed(2)}` : '–',
          `${signed(row.addedVsHotDirect?.p50)} / ${signed(row.addedVsHotDirect?.p95)}`,
          row.goal === 0 ? '0' : `≤ ${row.goal}`,
          row.met ? 'met' : '**missed**',
        ];
      }),
    ),
    '',
  ];
  return lines;
}

export function semanticScaleSection(results: BenchResults): string[] {
  const scale = results.semanticScale;
  if (!scale) return [];
  const lines = ['## Semantic cache at scale (bench/phases/semantic-scale.ts; goal: ≤ 64 KiB read and ≤ 1 round trip per lookup at 100,000 entries)', ''];
  if (!Array.isArray(scale)) return [...lines, `Not measured: ${scale.unavailable}.`, ''];
  if (scale.length === 0) return [...lines, 'Not measured (see Errors).', ''];
  return [
    ...lines,
    ...table(
      ['entries', 'bytes read per lookup (largest)', 'round trips (most)', 'p50 ms', 'p95 ms', 'recall'],
      scale.map((row) => [
        row.entries.toLocaleString('en-US'),
        `${(row.lookupBytes / 1024).toFixed(1)} KiB`,
        String(row.roundTrips),
        row.p50Ms.toFixed(2),
        row.p95Ms.toFixed(2),
        row.recall.toFixed(3),
      ]),
    ),
    '',
  ];
}

export function issue23Section(results: BenchResults): string[] {
  return goalsSection('Issue #23 goals', results.issue23);
}

/** Issue #34's goals: CPU (the plain request and one with a policy, a saved config and a cache lookup) and against Portkey. */
export function issue34Section(results: BenchResults): string[] {
  return goalsSection('Issue #34 goals (fast upstream, logs on)', results.issue34 ?? []);
}

/** Issue #48's goals: CPU, latency over the minimal proxy, throughput against Portkey, the AWS-shaped rows. */
export function issue48Section(results: BenchResults): string[] {
  return goalsSection('Issue #48 goals (Node 24, one run, beside Portkey and the minimal proxy)', results.issue48 ?? []);
}

function goalsSection(title: string, rows: GoalRow[]): string[] {
  if (rows.length === 0) return [];
  return [
    `## ${title}`,
    '',
    ...table(
      ['goal', 'measured', '', 'distance'],
      rows.map((row) => [row.goal, row.measured, row.status === 'met' ? 'met' : row.status === 'missed' ? '**missed**' : 'n/a', row.distance ?? '–']),
    ),
    '',
  ];
}
