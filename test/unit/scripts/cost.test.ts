import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCost } from '../../../scripts/cost.js';
import { DOCS_BEGIN, DOCS_END, renderDocsTables } from '../../../scripts/cost/docs-table.js';
import { ASSUMPTIONS, breakEvenRequestsPerSecond, computeCost, DEFAULT_INPUTS, emfKbPerRequest, firehosePerRequest, managedFleet, tracedShare, type CostInputs } from '../../../scripts/cost/model.js';
import { readPriceFile } from '../../../scripts/cost/prices.js';
import { readRecordedCounts, recordedCountsFrom, type Measurement, type RecordedCounts, type RecordedCountsFile } from '../../../scripts/cost/recorded-counts.js';

/** `npm run cost` (issue #44): gw's own AWS bill from measured operation counts and a dated price file. */
const ROOT = join(import.meta.dirname, '..', '..', '..');
const prices = readPriceFile();
const counts = readRecordedCounts();
const line = (result: ReturnType<typeof computeCost>, id: string) => result.lines.find((entry) => entry.id === id)!;
/** The recorded file with classic Lambda's counts replaced. */
const withLambda = (lambda: RecordedCounts): RecordedCountsFile => ({ ...counts, lambda });
/** A measurement of `requests` requests: record sizes by table, rows by table. */
const measured = (requests: number, records: Measurement['records'], rows: Measurement['rows'], flushedPerRequest = true) =>
  recordedCountsFrom({ scenario: 'unit', measuredBy: 'unit', requests, calls: [], records, rows, indexEntries: 0, flushedPerRequest });

describe('npm run cost', () => {
  it('runs as an npm script and prints the same figures as JSON with perMillion for the chosen mode', async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'cost', '--', '--json', '--compute', 'managed-instances', '--model-latency-s', '10', '--requests-per-second', '100'], { cwd: ROOT });
    const printed = JSON.parse(stdout) as { perMillion: number; lines: Array<{ id: string }>; breakEven: { requestsPerSecond: number } | null; prices: { asOf: string } };
    const computed = computeCost({ ...DEFAULT_INPUTS, compute: 'managed-instances', modelLatencyS: 10, requestsPerSecond: 100 }, prices, counts);
    expect(printed.perMillion).toBeCloseTo(computed.perMillion, 9);
    expect(printed.lines.map((entry) => entry.id)).toContain('instances');
    expect(printed.prices.asOf).toBe(prices.asOf);
    expect(printed.breakEven?.requestsPerSecond).toBeGreaterThan(0);
  });

  it('prints a line per service, per month and per million, and the break-even', () => {
    const text = runCost(['--requests-per-second', '50', '--model-latency-s', '2']);
    for (const item of ['API Gateway', 'Lambda requests', 'Lambda duration', 'DynamoDB writes', 'Secrets Manager', 'Firehose ingestion', 'Firehose conversion', 'S3', 'CloudWatch Logs', 'X-Ray', 'Data transfer out']) expect(text).toContain(item);
    expect(text).toMatch(/break-even between lambda and managed-instances at this latency: [\d.]+ requests\/s/);
  });

  it('refuses a bad option value with the option named', () => {
    expect(() => runCost(['--compute', 'fargate'])).toThrow(/--compute/);
    expect(() => runCost(['--requests-per-second', 'lots'])).toThrow(/--requests-per-second/);
    expect(() => runCost(['--compute', 'managed-instances', '--instance-type', 't9.huge'])).toThrow(/t9\.huge/);
  });

  it('is dated and every priced line names its source', () => {
    expect(prices.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const compute of ['lambda', 'managed-instances'] as const) {
      for (const entry of computeCost({ ...DEFAULT_INPUTS, compute }, prices, counts).lines) expect(entry.source, entry.id).toMatch(/^https:\/\/aws\.amazon\.com\//);
    }
  });
});

describe('the cost model', () => {
  it('bills every Firehose record rounded up to 5 KB, from the recorded record count (the table follows the recorder)', () => {
    const fiveRecords = measured(2, { requests: [900, 900], spans: [500, 500, 500, 500, 500, 500, 500, 500] }, { requests: 2, spans: 8 });
    expect(fiveRecords.firehose).toMatchObject({ recordsPerRequest: 5, billedKbPerRequest: 25, rowsPerRequest: 5, kbPerRequest: 2.8 });
    const oneRecord: RecordedCounts = { ...counts.lambda, firehose: { ...counts.lambda.firehose, recordsPerRequest: 1, billedKbPerRequest: 5 } };
    const many = line(computeCost(DEFAULT_INPUTS, prices, withLambda({ ...counts.lambda, firehose: fiveRecords.firehose })), 'firehoseIngestion').perMillion;
    const one = line(computeCost(DEFAULT_INPUTS, prices, withLambda(oneRecord)), 'firehoseIngestion').perMillion;
    expect(many / one).toBeCloseTo(5, 9);
    expect(one).toBeCloseTo((5 / 1024 / 1024) * prices.firehose.ingestionPerGb * 1e6, 9);
  });

  it('record packing: rows packed into one record per table bill each record once, however many rows it carries', () => {
    // Two requests, each flushed alone: a requests record of one row and a spans record of four (firehose-sink.ts).
    const packed = measured(2, { requests: [900, 900], spans: [2_000, 2_000] }, { requests: 2, spans: 8 });
    expect(packed.firehose).toMatchObject({ recordsPerRequest: 2, billedKbPerRequest: 10, rowsPerRequest: 5, kbPerRequest: 2.8 });
    // Ten requests in one flush (overlapping invocations): still two records, 5 KB billed per 5 KB carried.
    const shared = measured(10, { requests: [4_500], spans: [20_000] }, { requests: 10, spans: 40 });
    expect(shared.firehose.recordsPerRequest).toBe(0.2);
    expect(shared.firehose.billedKbPerRequest).toBe(2.5);
  });

  it('prices managed instances with the background flush: records per request fall with the rate (the class: per-request flush counts priced for a mode that packs)', () => {
    const managed = counts['managed-instances'];
    expect(managed.firehose.recordsPerRequest, 'measured per flush, not per request').toBeUndefined();
    // At 100 requests/s one flush a second carries 100 requests: one record per table (spans: 400 rows < 500).
    const at100 = firehosePerRequest(managed, 100);
    expect(at100.records).toBeCloseTo(2 / 100, 9);
    expect(at100.billedKb).toBeLessThan(managed.firehose.kbPerRequest + 0.2);
    // At 1 request/s every flush carries one request, as on classic Lambda.
    expect(firehosePerRequest(managed, 1).records).toBe(2);
    // At 1,000 requests/s the spans need records of their own past 500 rows each.
    expect(firehosePerRequest(managed, 1_000).records).toBeCloseTo((Math.ceil(1_000 / 500) + Math.ceil(4_000 / 500)) / 1_000, 9);
    const lambda = line(computeCost(DEFAULT_INPUTS, prices, counts), 'firehoseIngestion').perMillion;
    const instances = line(computeCost({ ...DEFAULT_INPUTS, compute: 'managed-instances' }, prices, counts), 'firehoseIngestion').perMillion;
    expect(instances).toBeLessThan(lambda / 2);
  });

  it('flush per environment: each managed environment packs only the requests it served, so a record carries the rate over the fleet (the class: one flush priced for a whole fleet)', () => {
    const managed = computeCost({ ...DEFAULT_INPUTS, compute: 'managed-instances', modelLatencyS: 10 }, prices, counts);
    const perEnvironment = firehosePerRequest(counts['managed-instances'], DEFAULT_INPUTS.requestsPerSecond / managed.fleet!.environments);
    expect(managed.fleet!.environments).toBeGreaterThan(1);
    expect(line(managed, 'firehoseIngestion').perMillion).toBeCloseTo((perEnvironment.billedKb / 1024 / 1024) * prices.firehose.ingestionPerGb * 1e6, 9);
    expect(perEnvironment.billedKb).toBeGreaterThan(firehosePerRequest(counts['managed-instances'], DEFAULT_INPUTS.requestsPerSecond).billedKb);
  });

  it('prices a write by its item and the index entries measured with it (+1 WRU each)', () => {
    const at = (indexEntriesPerRequest: number) =>
      line(computeCost(DEFAULT_INPUTS, prices, withLambda({ ...counts.lambda, dynamodb: { readsPerRequest: 0, writesPerRequest: 1, indexEntriesPerRequest } })), 'dynamodbWrites').perMillion;
    expect(at(1)).toBeCloseTo(1.25, 9);
    expect(at(0)).toBeCloseTo(0.625, 9);
  });

  it("counts X-Ray's default sampling: ~132k traces per million requests at 1 M requests a day", () => {
    expect(tracedShare(prices, 1e6 / 86_400) * 1e6).toBeCloseTo(132_000, -3);
  });

  it('prices the stack options gw controls: the access log format and X-Ray sampling, by compute (the class: a line no option moved)', () => {
    const logs = (accessLog: 'full' | 'lean' | 'off') => line(computeCost({ ...DEFAULT_INPUTS, accessLog }, prices, counts), 'cloudwatchLogs').perMillion;
    expect(logs('full')).toBeGreaterThan(logs('lean'));
    expect(logs('lean')).toBeGreaterThan(logs('off'));
    // Off leaves Lambda's own lines (~0.3 KB) and gw's metric line (one per classic invocation); gw writes no log line
    // for a request that succeeds.
    expect(logs('off')).toBeCloseTo(((0.3 + emfKbPerRequest('lambda', 100)) / 1024 / 1024) * prices.cloudwatch.logsIngestionPerGb * 1e6, 9);
    const xray = (compute: 'lambda' | 'managed-instances', xrayRate?: number) => line(computeCost({ ...DEFAULT_INPUTS, compute, ...(xrayRate === undefined ? {} : { xrayRate }) }, prices, counts), 'xray').perMillion;
    expect(xray('lambda')).toBeCloseTo(tracedShare(prices, 100) * prices.xray.perMillionTracesRecorded, 9);
    expect(xray('managed-instances')).toBeCloseTo(tracedShare(prices, 100, 0.01) * prices.xray.perMillionTracesRecorded, 9);
    expect(xray('managed-instances', 0)).toBe(0);
    expect(() => runCost(['--access-log', 'verbose'])).toThrow(/--access-log/);
    expect(() => runCost(['--xray-rate', '2'])).toThrow(/--xray-rate/);
  });

  it('keeps AWS\'s fixed prices in the floor: API Gateway, Lambda requests and data transfer do not move with gw\'s options', () => {
    const cheapest = computeCost({ ...DEFAULT_INPUTS, compute: 'managed-instances', accessLog: 'off', xrayRate: 0, waf: false, concurrencyPerEnvironment: 256 }, prices, counts);
    const fixed = ['apiGateway', 'lambdaRequests', 'dataTransferOut'].reduce((sum, id) => sum + line(cheapest, id).perMillion, 0);
    expect(fixed).toBeCloseTo(3.5 + 0.2 + (4 / 1024 / 1024) * prices.ec2.dataTransferOutPerGb * 1e6, 9);
    expect(cheapest.perMillion).toBeGreaterThan(fixed);
  });

  it('bills a streamed answer one API Gateway request per started 10 MB (within the first price tier)', () => {
    const small = line(computeCost({ ...DEFAULT_INPUTS, requestsPerSecond: 10, answerKb: 4 }, prices, counts), 'apiGateway').perMillion;
    const large = line(computeCost({ ...DEFAULT_INPUTS, requestsPerSecond: 10, answerKb: 15 * 1024 }, prices, counts), 'apiGateway').perMillion;
    expect(large).toBeCloseTo(2 * small, 9);
  });

  it('charges classic Lambda for the wait and managed instances for the fleet, so the wait moves only the first', () => {
    const classic = (modelLatencyS: number) => computeCost({ ...DEFAULT_INPUTS, modelLatencyS }, prices, counts).perMillion;
    expect(classic(10) - classic(2)).toBeCloseTo((8 * 0.5 * prices.lambda.arm64PerGbSecond) * 1e6, 6);
    const managed = computeCost({ ...DEFAULT_INPUTS, compute: 'managed-instances', modelLatencyS: 10 }, prices, counts);
    expect(managed.lines.some((entry) => entry.id === 'lambdaDuration')).toBe(false);
    expect(line(managed, 'managementFee').perMonth).toBeCloseTo(line(managed, 'instances').perMonth * 0.15, 9);
    expect(managed.fleet!.environments).toBeGreaterThanOrEqual(DEFAULT_INPUTS.minEnvironments);
  });

  it('finds the break-even where both computes cost the same a month', () => {
    const rps = breakEvenRequestsPerSecond({ ...DEFAULT_INPUTS, modelLatencyS: 2 }, prices, counts)!;
    const at = (compute: 'lambda' | 'managed-instances', requestsPerSecond: number) => computeCost({ ...DEFAULT_INPUTS, compute, requestsPerSecond, modelLatencyS: 2 }, prices, counts).perMonth;
    expect(at('lambda', rps * 0.9)).toBeLessThan(at('managed-instances', rps * 0.9));
    expect(at('lambda', rps * 1.1)).toBeGreaterThan(at('managed-instances', rps * 1.1));
  });
});

describe('the ≤ $5 levers of managed instances (egress, Lambda\'s own log lines, concurrency per environment)', () => {
  const managed = (overrides: Partial<CostInputs> = {}) => computeCost({ ...DEFAULT_INPUTS, compute: 'managed-instances', ...overrides }, prices, counts);
  const gb = (kb: number) => kb / 1024 / 1024;
  const natKb = DEFAULT_INPUTS.requestKb + DEFAULT_INPUTS.answerKb + counts['managed-instances'].firehose.kbPerRequest;

  it('prices a NAT instance by its hours and address only: no per-GB processing line (the class: a per-GB charge no option removed)', () => {
    const zones = ASSUMPTIONS.availabilityZones;
    const gateway = managed({ natGateways: zones });
    const instance = managed({ natGateways: zones, egress: 'nat-instance' });
    expect(line(gateway, 'natHours').perMonth).toBeCloseTo(zones * (prices.vpc.natGatewayPerHour + prices.vpc.publicIpv4PerHour) * 730, 9);
    expect(line(gateway, 'natData').perMillion).toBeCloseTo(gb(natKb) * prices.vpc.natGatewayPerGbProcessed * 1e6, 9);
    expect(instance.lines.map((entry) => entry.id)).not.toContain('natData');
    expect(instance.lines.map((entry) => entry.id)).not.toContain('natHours');
    expect(line(instance, 'natInstanceHours').perMonth).toBeCloseTo(zones * (prices.ec2.natInstances['t4g.nano'].perHour + prices.vpc.publicIpv4PerHour) * 730, 9);
    // Everything else is the same bill: data transfer is billed either way.
    expect(gateway.perMonth - instance.perMonth).toBeCloseTo(line(gateway, 'natHours').perMonth + line(gateway, 'natData').perMonth - line(instance, 'natInstanceHours').perMonth, 6);
    expect(line(instance, 'dataTransferOut').perMonth).toBe(line(gateway, 'dataTransferOut').perMonth);
    expect(line(managed({ egress: 'nat-instance', natInstanceType: 't4g.small' }), 'natInstanceHours').perMonth).toBeCloseTo(prices.ec2.natInstances['t4g.small'].perHour * 730 + prices.vpc.publicIpv4PerHour * 730, 9);
  });

  it('bills the traffic of zones without a NAT of their own between zones, out and in', () => {
    const zones = ASSUMPTIONS.availabilityZones;
    for (const egress of ['nat-gateway', 'nat-instance'] as const) {
      expect(line(managed({ egress, natGateways: 1 }), 'natCrossZone').perMillion).toBeCloseTo(gb(natKb) * ((zones - 1) / zones) * 2 * prices.ec2.interAzPerGbEachDirection * 1e6, 9);
      expect(line(managed({ egress, natGateways: zones }), 'natCrossZone').perMonth).toBe(0);
    }
  });

  it('bills the request sent to the provider as data out, on either compute', () => {
    for (const compute of ['lambda', 'managed-instances'] as const) {
      expect(line(computeCost({ ...DEFAULT_INPUTS, compute }, prices, counts), 'dataTransferToProviders').perMillion).toBeCloseTo(gb(DEFAULT_INPUTS.requestKb) * prices.ec2.dataTransferOutPerGb * 1e6, 9);
    }
  });

  it("drops Lambda's START/END/REPORT lines at system log level warn, the managed-instances default, and keeps them on classic Lambda", () => {
    const logs = (inputs: Partial<CostInputs>) => line(computeCost({ ...DEFAULT_INPUTS, ...inputs }, prices, counts), 'cloudwatchLogs').perMillion;
    const lambdaLines = gb(ASSUMPTIONS.functionLogKb) * prices.cloudwatch.logsIngestionPerGb * 1e6;
    expect(logs({ compute: 'managed-instances', systemLogLevel: 'info' }) - logs({ compute: 'managed-instances' })).toBeCloseTo(lambdaLines, 9);
    expect(logs({ compute: 'lambda' }) - logs({ compute: 'lambda', systemLogLevel: 'warn' })).toBeCloseTo(lambdaLines, 9);
    // What is left with no access log on instances: gw's metric lines, batched (a hundred requests to a line).
    const managedOff = computeCost({ ...DEFAULT_INPUTS, compute: 'managed-instances', accessLog: 'off' }, prices, counts);
    expect(line(managedOff, 'cloudwatchLogs').perMillion).toBeCloseTo(gb(emfKbPerRequest('managed-instances', 100 / managedOff.fleet!.environments)) * prices.cloudwatch.logsIngestionPerGb * 1e6, 9);
    expect(emfKbPerRequest('managed-instances', 100)).toBeLessThan(emfKbPerRequest('lambda', 100) / 20);
  });

  it('sizes the fleet by requests in flight over concurrency per environment, up to AWS\'s 1,600, never below the minimum or the CPU', () => {
    const fleet = (modelLatencyS: number, concurrencyPerEnvironment: number) => managedFleet({ ...DEFAULT_INPUTS, compute: 'managed-instances', modelLatencyS, concurrencyPerEnvironment }, prices);
    const at10 = fleet(10, 512);
    expect(at10.inFlight).toBeCloseTo(100 * (10 + ASSUMPTIONS.gwDurationMs / 1000), 9);
    expect(at10.environments).toBe(Math.max(DEFAULT_INPUTS.minEnvironments, Math.ceil(at10.inFlight / (512 * ASSUMPTIONS.concurrencyHeadroom))));
    expect(fleet(10, 256).environments).toBe(Math.ceil(at10.inFlight / (256 * ASSUMPTIONS.concurrencyHeadroom)));
    // CPU: 7.1 ms a request at 100 requests/s is 0.71 vCPU, planned at 50 %: 2 environments, below the minimum of 3.
    expect(fleet(2, 1600).environments).toBe(DEFAULT_INPUTS.minEnvironments);
    expect(managedFleet({ ...DEFAULT_INPUTS, requestsPerSecond: 1_000, modelLatencyS: 0, concurrencyPerEnvironment: 1600 }, prices).environments).toBe(Math.ceil((1_000 * ASSUMPTIONS.cpuMsPerRequest) / 1000 / ASSUMPTIONS.cpuTargetUtilisation));
    expect(() => runCost(['--concurrency-per-environment', '1601'])).toThrow(/--concurrency-per-environment.*1600/);
  });

  it('reaches ≤ $5 per million at 2 s and 10 s with the levers docs/deploy.md names, and not with the WAF on', () => {
    const levers: Partial<CostInputs> = { waf: false, accessLog: 'off', xrayRate: 0, concurrencyPerEnvironment: 512, egress: 'nat-instance', natGateways: ASSUMPTIONS.availabilityZones, systemLogLevel: 'warn' };
    for (const modelLatencyS of [2, 10]) {
      const cheapest = managed({ ...levers, modelLatencyS });
      expect(cheapest.perMillion, `${modelLatencyS} s`).toBeLessThanOrEqual(5);
      const withWaf = managed({ ...levers, modelLatencyS, waf: true });
      expect(withWaf.perMillion - cheapest.perMillion).toBeCloseTo(line(withWaf, 'waf').perMillion, 9);
      expect(withWaf.perMillion, `${modelLatencyS} s with the WAF`).toBeGreaterThan(5);
    }
    // The command the page gives prints the same figure.
    const printed = JSON.parse(runCost(['--compute', 'managed-instances', '--model-latency-s', '10', '--waf', 'off', '--access-log', 'off', '--xray-rate', '0', '--concurrency-per-environment', '512', '--egress', 'nat-instance', '--nat-gateways', '2', '--system-log-level', 'warn', '--json'])) as { perMillion: number };
    expect(printed.perMillion).toBeCloseTo(managed({ ...levers, modelLatencyS: 10 }).perMillion, 9);
  });

  it('refuses an unknown egress, NAT instance type or system log level, naming the option', () => {
    expect(() => runCost(['--egress', 'nat'])).toThrow(/--egress/);
    expect(() => runCost(['--system-log-level', 'debug'])).toThrow(/--system-log-level/);
    expect(() => runCost(['--compute', 'managed-instances', '--egress', 'nat-instance', '--nat-instance-type', 't9.huge'])).toThrow(/t9\.huge/);
  });
});

describe("docs/deploy.md's cost tables", () => {
  it('are exactly what npm run cost -- --docs generates from the recorded counts and the price file', () => {
    const page = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');
    const start = page.indexOf(DOCS_BEGIN);
    const end = page.indexOf(DOCS_END);
    expect(start, 'the generated block is on the page').toBeGreaterThanOrEqual(0);
    expect(page.slice(start, end + DOCS_END.length)).toBe(renderDocsTables(prices, counts));
  });
});
