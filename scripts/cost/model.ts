import { MAX_BYTES_PER_RECORD, MAX_ROWS_PER_RECORD } from '../../shared/observability/engine/aws/firehose-sink.js';
import type { RecordedCounts, RecordedCountsFile } from './recorded-counts.js';
import type { PriceFile } from './prices.js';

/**
 * gw's own AWS cost (issue #44), line by line, for one traffic shape and one compute choice for the gateway: what
 * `npm run cost` prints and docs/deploy.md's tables are generated from. Operation counts per request come from the
 * recorded counts (measured on the built bundle), prices from a dated price file; the few figures that cannot be
 * measured without an AWS account are the named ASSUMPTIONS below, each with where it comes from.
 */
export type Compute = 'lambda' | 'managed-instances';
/** Managed instances: what each NAT is (the stack's managedEgress). */
export type Egress = 'nat-gateway' | 'nat-instance';

export interface CostInputs {
  requestsPerSecond: number;
  /** Seconds the gateway waits for the model per request (the provider's latency, streamed or not). */
  modelLatencyS: number;
  compute: Compute;
  /** Classic Lambda: the gateway's memory. */
  memoryMb: number;
  /** Managed instances: the EC2 instance type (a key of the price file's `ec2.instances`). */
  instanceType: string;
  /** Managed instances: concurrent invocations per execution environment (the stack's managedConcurrencyPerEnvironment). */
  concurrencyPerEnvironment: number;
  /** Managed instances: execution environments kept running (managedMinEnvironments). */
  minEnvironments: number;
  /** Managed instances: NATs of the VPC (natGateways): NAT gateways, or NAT instances with egress nat-instance. */
  natGateways: number;
  /** Managed instances: NAT gateways or NAT instances (managedEgress). */
  egress: Egress;
  /** Managed instances with egress nat-instance: the NAT instance's type (a key of the price file's `ec2.natInstances`). */
  natInstanceType: string;
  /** Size of the answer the client receives, KB. */
  answerKb: number;
  /** Size of the request body, KB. */
  requestKb: number;
  /** The stack's WAF web ACL (on by default in production: the `waf` context key). */
  waf: boolean;
  /** The stage's access log (the `apiAccessLog` context key). */
  accessLog: 'full' | 'lean' | 'off';
  /** X-Ray's fixed rate (`xraySampleRate`); unset: AWS's default rule with classic Lambda, the stack's 1 % with managed instances. */
  xrayRate?: number;
  /** The gateway's system log level (`lambdaSystemLogLevel`); unset: the stack's default, info with classic Lambda, warn with managed instances. */
  systemLogLevel?: 'info' | 'warn';
}

export const DEFAULT_INPUTS: CostInputs = {
  requestsPerSecond: 100,
  modelLatencyS: 2,
  compute: 'lambda',
  memoryMb: 512,
  instanceType: 'c7g.large',
  concurrencyPerEnvironment: 64,
  minEnvironments: 3,
  natGateways: 1,
  egress: 'nat-gateway',
  natInstanceType: 't4g.nano',
  answerKb: 4,
  requestKb: 2,
  waf: true,
  accessLog: 'lean',
};

/** The stack's default X-Ray rate with managed instances (infra/cdk/constructs/trace-sampling.ts). */
export const MANAGED_XRAY_RATE = 0.01;

/** What is not measurable here (no AWS account), each with its origin. */
export const ASSUMPTIONS = {
  /** gw's own time in a 512 MB classic sandbox per warm request (docs/deploy.md "Sizing", bench/memory-choice.ts, measured). */
  gwDurationMs: 35.1,
  /** Classic Lambda: the request-log flush inside the invocation (PutRecordBatch round trips in the region; assumed). */
  logFlushMs: 20,
  /** gw's CPU time per warm request (docs/deploy.md "Sizing", measured at 512 MB). */
  cpuMsPerRequest: 7.1,
  /** Lambda Managed Instances: memory per vCPU (GiB) and the stack's environment memory (2048 MB: 1 vCPU). */
  environmentVcpus: 1,
  /** Managed instances: plan environments for this share of their concurrency and CPU (headroom for bursts). */
  concurrencyHeadroom: 0.8,
  cpuTargetUtilisation: 0.5,
  /**
   * CloudWatch Logs per request: an API Gateway access line (full ~0.6 KB, lean ~0.3 KB, by the formats' field names
   * and typical values) and the function's: gw writes no line for a request that succeeds (functions/lib logs
   * failures only), Lambda its START, END and REPORT lines, ~0.3 KB.
   */
  accessLogKb: { full: 0.6, lean: 0.3, off: 0 },
  functionLogKb: 0.3,
  /**
   * gw's metrics (shared/observability/metrics.ts) are EMF lines in the function's log: published at every classic
   * drain (one line per request), on instances once 100 samples wait or every 10 s. Sizes of Powertools Metrics' lines,
   * rendered for one request (latency, ttft, tokens, cost: 475 B) and for a batch of 100 (three lines: 754 B plus
   * ~9 B per request of latency and ttft values).
   */
  emfBytes: { perInvocationLine: 475, perBatchOverhead: 754, perRequestInBatch: 9, maxBatch: 100, publishSeconds: 10 },
  /**
   * Availability Zones of the managed-instances VPC: the stack is environment-agnostic, so CDK's Vpc (maxAzs 3) gets
   * two (Fn::GetAZs, the first two). Instances in a zone without a NAT reach the NAT of another zone, and that traffic
   * is billed between zones.
   */
  availabilityZones: 2,
  /** Parquet in S3 per million requests (requests ~150 B a record plus spans, docs/deploy.md), kept 90 days. */
  storedGbPerMillion: 0.25,
  storedMonths: 90 / 30.4,
  /** Managed instances: the Firehose sink's background flush interval (firehose-sink.ts maxDelayMs, 1 s). */
  managedFlushSeconds: 1,
  /** Firehose writes one object per stream per 45 s buffer, whatever the traffic. */
  firehoseStreams: 2,
  firehoseBufferSeconds: 45,
  /** Fixed monthly items of the stack: 20 alarms and one dashboard. */
  alarms: 20,
  /** Rules of the stack's web ACL (infra/cdk/constructs/web-acl.ts): per-address rate, two payload limits. */
  wafRules: 3,
  dashboards: 1,
} as const;

const HOURS_PER_MONTH = 730;
const round3 = (value: number) => Math.round(value * 1000) / 1000;
const KB_PER_GB = 1024 * 1024;

export interface CostLine {
  id: string;
  item: string;
  /** The quantity priced, in words (per request, or per month for fixed items). */
  basis: string;
  perMonth: number;
  perMillion: number;
  source: string;
}

export interface CostResult {
  inputs: CostInputs;
  requestsPerMonth: number;
  lines: CostLine[];
  perMonth: number;
  perMillion: number;
  /** Managed instances: the fleet sized for this traffic. */
  fleet?: { environments: number; instances: number; inFlight: number };
}

export function requestsPerMonth(requestsPerSecond: number): number {
  return requestsPerSecond * 3600 * HOURS_PER_MONTH;
}

/** API Gateway's tiered REST price for a month's billed requests. */
function apiGatewayMonthly(prices: PriceFile, billedMillions: number): number {
  let remaining = billedMillions;
  let floor = 0;
  let total = 0;
  for (const tier of prices.apiGateway.restPerMillionTiers) {
    const ceiling = tier.upToMillionsPerMonth ?? Number.POSITIVE_INFINITY;
    const inTier = Math.max(0, Math.min(remaining, ceiling - floor));
    total += inTier * tier.perMillion;
    remaining -= inTier;
    floor = ceiling;
    if (remaining <= 0) break;
  }
  return total;
}

/** X-Ray's sampling: the reservoir's one request a second, then the fixed rate of the rest (AWS's default: 5 %); 0 is off. */
export function tracedShare(prices: PriceFile, requestsPerSecond: number, fixedRate = prices.xray.defaultFixedRate): number {
  if (fixedRate === 0) return 0;
  const reservoir = Math.min(requestsPerSecond, prices.xray.defaultReservoirPerSecond);
  return (reservoir + fixedRate * (requestsPerSecond - reservoir)) / requestsPerSecond;
}

export function managedFleet(inputs: CostInputs, prices: PriceFile): { environments: number; instances: number; inFlight: number } {
  const instance = prices.ec2.instances[inputs.instanceType];
  if (!instance) throw new Error(`unknown instance type ${inputs.instanceType}: the price file knows ${Object.keys(prices.ec2.instances).join(', ')}`);
  const inFlight = inputs.requestsPerSecond * (inputs.modelLatencyS + ASSUMPTIONS.gwDurationMs / 1000);
  const byConcurrency = Math.ceil(inFlight / (inputs.concurrencyPerEnvironment * ASSUMPTIONS.concurrencyHeadroom));
  const byCpu = Math.ceil((inputs.requestsPerSecond * ASSUMPTIONS.cpuMsPerRequest) / 1000 / (ASSUMPTIONS.environmentVcpus * ASSUMPTIONS.cpuTargetUtilisation));
  const environments = Math.max(inputs.minEnvironments, byConcurrency, byCpu, 1);
  const instances = Math.ceil((environments * ASSUMPTIONS.environmentVcpus) / instance.vcpus);
  return { environments, instances, inFlight };
}

/**
 * Firehose records and billed KB per request. Measured where each request is flushed alone (classic Lambda);
 * where invocations share an environment (managed instances) the background flush sends every request of its
 * interval (the sink's 1 s timer) together, one record per table of up to MAX_ROWS_PER_RECORD rows and
 * MAX_BYTES_PER_RECORD bytes (firehose-sink.ts), so a request's share falls with the rate.
 */
export function firehosePerRequest(counts: RecordedCounts, requestsPerSecond: number): { records: number; billedKb: number; requestsPerFlush: number } {
  const { firehose } = counts;
  if (firehose.recordsPerRequest !== undefined && firehose.billedKbPerRequest !== undefined) return { records: firehose.recordsPerRequest, billedKb: firehose.billedKbPerRequest, requestsPerFlush: 1 };
  const requestsPerFlush = Math.max(1, requestsPerSecond * ASSUMPTIONS.managedFlushSeconds);
  let records = 0;
  let billedKb = 0;
  for (const table of [firehose.byTable.requests, firehose.byTable.spans]) {
    const rows = table.rowsPerRequest * requestsPerFlush;
    const bytes = table.kbPerRequest * 1024 * requestsPerFlush;
    if (rows <= 0) continue;
    const tableRecords = Math.max(1, Math.ceil(rows / MAX_ROWS_PER_RECORD), Math.ceil(bytes / MAX_BYTES_PER_RECORD));
    records += tableRecords;
    billedKb += tableRecords * Math.max(1, Math.ceil(bytes / tableRecords / 5120)) * 5;
  }
  return { records: records / requestsPerFlush, billedKb: billedKb / requestsPerFlush, requestsPerFlush };
}

export function computeCost(inputs: CostInputs, prices: PriceFile, countsFile: RecordedCountsFile): CostResult {
  // Each compute is priced with the counts measured the way it runs (recorded-counts.ts).
  const counts = countsFile[inputs.compute];
  const monthly = requestsPerMonth(inputs.requestsPerSecond);
  const millions = monthly / 1e6;
  const lines: CostLine[] = [];
  const add = (id: string, item: string, basis: string, perMonth: number, source: string) =>
    lines.push({ id, item, basis, perMonth, perMillion: millions > 0 ? perMonth / millions : 0, source });
  const perRequest = (value: number) => value * monthly;

  const streamedBilled = Math.max(1, Math.ceil((inputs.answerKb * 1024) / prices.apiGateway.streamedBytesPerBilledRequest));
  add('apiGateway', 'API Gateway REST requests (streaming: one request per started 10 MB)', `${streamedBilled} billed request(s) per request`, apiGatewayMonthly(prices, millions * streamedBilled), prices.apiGateway.source);

  if (inputs.waf) {
    add('waf', 'WAF web ACL (rate and payload-limit rules; every request inspected)', '1 inspected request per request, plus the ACL and its rules a month', prices.waf.webAclPerMonth + ASSUMPTIONS.wafRules * prices.waf.rulePerMonth + perRequest(prices.waf.perMillionRequests / 1e6), prices.waf.source);
  }

  let fleet: CostResult['fleet'];
  if (inputs.compute === 'lambda') {
    const seconds = inputs.modelLatencyS + (ASSUMPTIONS.gwDurationMs + ASSUMPTIONS.logFlushMs) / 1000;
    const gbSeconds = (inputs.memoryMb / 1024) * seconds;
    add('lambdaRequests', 'Lambda requests', '1 invocation per request', perRequest(prices.lambda.requestsPerMillion / 1e6), prices.lambda.source);
    add('lambdaDuration', 'Lambda duration, arm64 (billed while it waits for the model)', `${(inputs.memoryMb / 1024).toFixed(2)} GB × ${seconds.toFixed(3)} s = ${gbSeconds.toFixed(3)} GB-s`, perRequest(gbSeconds * prices.lambda.arm64PerGbSecond), prices.lambda.source);
  } else {
    fleet = managedFleet(inputs, prices);
    const instance = prices.ec2.instances[inputs.instanceType];
    const ec2 = fleet.instances * instance.perHour * HOURS_PER_MONTH;
    add('lambdaRequests', 'Lambda Managed Instances requests', '1 invocation per request', perRequest(prices.lambda.managedInstancesRequestsPerMillion / 1e6), prices.lambda.source);
    add('instances', `EC2 instances (${inputs.instanceType}, on demand)`, `${fleet.instances} instance(s): ${fleet.environments} environment(s) of 1 vCPU for ${fleet.inFlight.toFixed(0)} requests in flight at ${inputs.concurrencyPerEnvironment} per environment`, ec2, prices.ec2.source);
    add('managementFee', 'Lambda Managed Instances management fee', `${(prices.lambda.managedInstancesFeeShareOfEc2 * 100).toFixed(0)} % of the instances' price`, ec2 * prices.lambda.managedInstancesFeeShareOfEc2, prices.lambda.source);
    addEgress(inputs, prices, counts, add, perRequest);
  }
  add('dataTransferOut', 'Data transfer out to clients', `${inputs.answerKb} KB per request`, perRequest((inputs.answerKb / KB_PER_GB) * prices.ec2.dataTransferOutPerGb), prices.ec2.source);
  // The call to the provider leaves AWS too (Lambda bills data out at EC2's rates; on instances it leaves through
  // the NAT and is billed as data out besides the NAT's own charges). An in-region AWS provider (Bedrock) costs nothing.
  add('dataTransferToProviders', 'Data transfer out to providers (the request body; none to an in-region Bedrock)', `${inputs.requestKb} KB per request`, perRequest((inputs.requestKb / KB_PER_GB) * prices.ec2.dataTransferOutPerGb), prices.ec2.source);

  const wru = counts.dynamodb.writesPerRequest + counts.dynamodb.indexEntriesPerRequest;
  add('dynamodbWrites', 'DynamoDB writes, on demand', `${counts.dynamodb.writesPerRequest} write(s) + ${counts.dynamodb.indexEntriesPerRequest} index entries = ${round3(wru)} WRU`, perRequest((wru * prices.dynamodb.perMillionWriteRequestUnits) / 1e6), prices.dynamodb.source);
  add('dynamodbReads', 'DynamoDB reads, on demand', `${counts.dynamodb.readsPerRequest} read(s) (warm caches)`, perRequest((counts.dynamodb.readsPerRequest * prices.dynamodb.perMillionReadRequestUnits) / 1e6), prices.dynamodb.source);
  add('secretsManager', 'Secrets Manager calls', `${counts.secretsManagerCallsPerRequest} call(s) (credentials cached)`, perRequest((counts.secretsManagerCallsPerRequest * prices.secretsManager.perTenThousandCalls) / 1e4), prices.secretsManager.source);

  // Each environment flushes its own buffers: on managed instances a flush carries that environment's share of the rate.
  const firehose = firehosePerRequest(counts, inputs.requestsPerSecond / (fleet?.environments ?? 1));
  const billedGb = firehose.billedKb / KB_PER_GB;
  const packing = firehose.requestsPerFlush > 1 ? ` (${Math.round(firehose.requestsPerFlush)} requests a flush)` : '';
  add('firehoseIngestion', 'Firehose ingestion (each record rounded up to 5 KB)', `${round3(firehose.records)} record(s) billed ${round3(firehose.billedKb)} KB${packing}`, perRequest(billedGb * prices.firehose.ingestionPerGb), prices.firehose.source);
  add('firehoseConversion', 'Firehose conversion to Parquet (same rounding)', `${round3(firehose.billedKb)} KB`, perRequest(billedGb * prices.firehose.formatConversionPerGb), prices.firehose.source);
  const s3Puts = (ASSUMPTIONS.firehoseStreams * 86_400 * (HOURS_PER_MONTH / 24)) / ASSUMPTIONS.firehoseBufferSeconds;
  add('s3Puts', 'S3 PUTs by Firehose (one object per stream per buffer)', `${Math.round(s3Puts).toLocaleString('en-US')} objects a month, whatever the traffic`, (s3Puts / 1000) * prices.s3.putPerThousand + counts.s3CallsPerRequest * monthly * (prices.s3.putPerThousand / 1000), prices.s3.source);
  add('s3Storage', 'S3 storage of request logs (Parquet, 90 days)', `${ASSUMPTIONS.storedGbPerMillion} GB per million requests`, millions * ASSUMPTIONS.storedGbPerMillion * ASSUMPTIONS.storedMonths * prices.s3.storagePerGbMonth, prices.s3.source);
  const accessKb = ASSUMPTIONS.accessLogKb[inputs.accessLog];
  const systemLogLevel = inputs.systemLogLevel ?? (inputs.compute === 'managed-instances' ? 'warn' : 'info');
  // At WARN (JSON log format) Lambda writes no START, END or REPORT line for a successful invocation.
  const functionKb = systemLogLevel === 'warn' ? 0 : ASSUMPTIONS.functionLogKb;
  const metricsKb = emfKbPerRequest(inputs.compute, inputs.requestsPerSecond / (fleet?.environments ?? 1));
  const logKb = accessKb + functionKb + metricsKb;
  add('cloudwatchLogs', "CloudWatch Logs ingestion (access log, gw's metric lines, Lambda's START/END/REPORT at system log level INFO only)", `${round3(logKb)} KB per request: access log ${inputs.accessLog} ${accessKb} KB, metrics ${round3(metricsKb)} KB, Lambda's lines ${functionKb} KB (system log level ${systemLogLevel})`, perRequest((logKb / KB_PER_GB) * prices.cloudwatch.logsIngestionPerGb), prices.cloudwatch.source);
  const rate = inputs.xrayRate ?? (inputs.compute === 'managed-instances' ? MANAGED_XRAY_RATE : prices.xray.defaultFixedRate);
  const share = tracedShare(prices, inputs.requestsPerSecond, rate);
  const rule = rate === 0 ? 'off' : `1 a second + ${+(rate * 100).toFixed(2)} %`;
  add('xray', `X-Ray traces (sampling: ${rule})`, `${(share * 1e6).toLocaleString('en-US', { maximumFractionDigits: 0 })} traces per million requests at ${inputs.requestsPerSecond} req/s`, perRequest((share * prices.xray.perMillionTracesRecorded) / 1e6), prices.xray.source);
  add('fixed', 'Alarms and dashboard', `${ASSUMPTIONS.alarms} alarms, ${ASSUMPTIONS.dashboards} dashboard`, ASSUMPTIONS.alarms * prices.cloudwatch.alarmPerMonth + ASSUMPTIONS.dashboards * prices.cloudwatch.dashboardPerMonth, prices.cloudwatch.source);

  const perMonth = lines.reduce((sum, line) => sum + line.perMonth, 0);
  return { inputs, requestsPerMonth: monthly, lines, perMonth, perMillion: millions > 0 ? perMonth / millions : 0, fleet };
}

/** KB of gw's EMF metric lines per request: one line per invocation on classic Lambda, batches per environment on instances. */
export function emfKbPerRequest(compute: Compute, requestsPerSecondPerEnvironment: number): number {
  const emf = ASSUMPTIONS.emfBytes;
  if (compute === 'lambda') return emf.perInvocationLine / 1024;
  const batch = Math.max(1, Math.min(emf.maxBatch, requestsPerSecondPerEnvironment * emf.publishSeconds));
  return (emf.perRequestInBatch + emf.perBatchOverhead / batch) / 1024;
}

type AddLine = (id: string, item: string, basis: string, perMonth: number, source: string) => void;

/**
 * Managed instances' way out: the NATs' hours (each with its public IPv4 address), a NAT gateway's per-GB processing
 * (a NAT instance has none), and the traffic of instances in a zone without a NAT of its own, billed between zones in
 * each direction. What crosses the NAT: the request to the provider, its answer and the Firehose records (DynamoDB
 * and S3 go through free gateway endpoints).
 */
function addEgress(inputs: CostInputs, prices: PriceFile, counts: RecordedCounts, add: AddLine, perRequest: (value: number) => number): void {
  const natKb = inputs.requestKb + inputs.answerKb + counts.firehose.kbPerRequest;
  const address = prices.vpc.publicIpv4PerHour;
  if (inputs.egress === 'nat-instance') {
    const nat = prices.ec2.natInstances[inputs.natInstanceType];
    if (!nat) throw new Error(`unknown NAT instance type ${inputs.natInstanceType}: the price file knows ${Object.keys(prices.ec2.natInstances).join(', ')}`);
    add('natInstanceHours', `NAT instances (${inputs.natInstanceType}, on demand; no per-GB processing)`, `${inputs.natGateways} instance(s) × ${HOURS_PER_MONTH} h, each with a public IPv4 address`, inputs.natGateways * (nat.perHour + address) * HOURS_PER_MONTH, prices.ec2.source);
  } else {
    add('natHours', 'NAT gateway hours', `${inputs.natGateways} NAT gateway(s) × ${HOURS_PER_MONTH} h, each with a public IPv4 address`, inputs.natGateways * (prices.vpc.natGatewayPerHour + address) * HOURS_PER_MONTH, prices.vpc.source);
    add('natData', 'NAT gateway data processed (provider calls, Firehose; DynamoDB and S3 use free endpoints)', `${natKb.toFixed(1)} KB per request`, perRequest((natKb / KB_PER_GB) * prices.vpc.natGatewayPerGbProcessed), prices.vpc.source);
  }
  const crossShare = Math.max(0, ASSUMPTIONS.availabilityZones - inputs.natGateways) / ASSUMPTIONS.availabilityZones;
  add(
    'natCrossZone',
    'Traffic to a NAT in another Availability Zone (billed out and in)',
    crossShare === 0 ? `none: a NAT in each of the ${ASSUMPTIONS.availabilityZones} zones` : `${(crossShare * 100).toFixed(0)} % of ${natKb.toFixed(1)} KB per request (${inputs.natGateways} NAT(s) for ${ASSUMPTIONS.availabilityZones} zones)`,
    perRequest(((natKb * crossShare) / KB_PER_GB) * 2 * prices.ec2.interAzPerGbEachDirection),
    prices.ec2.source,
  );
}

/**
 * The request rate at which both computes cost the same a month, for the inputs' latency and sizes (bisection over
 * 0.01–10,000 req/s; null when one is cheaper over the whole range). Below it classic Lambda is cheaper (it scales to
 * zero), above it managed instances are.
 */
export function breakEvenRequestsPerSecond(inputs: CostInputs, prices: PriceFile, counts: RecordedCountsFile): number | null {
  const difference = (rps: number) =>
    computeCost({ ...inputs, requestsPerSecond: rps, compute: 'lambda' }, prices, counts).perMonth -
    computeCost({ ...inputs, requestsPerSecond: rps, compute: 'managed-instances' }, prices, counts).perMonth;
  let low = 0.01;
  let high = 10_000;
  if (difference(low) >= 0 || difference(high) <= 0) return null;
  for (let step = 0; step < 60; step++) {
    const middle = Math.sqrt(low * high);
    if (difference(middle) < 0) low = middle;
    else high = middle;
  }
  return high;
}
