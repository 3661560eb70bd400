import { parseArgs } from 'node:util';
import { renderDocsTables } from './cost/docs-table.js';
import { breakEvenRequestsPerSecond, computeCost, DEFAULT_INPUTS, requestsPerMonth, type Compute, type CostInputs } from './cost/model.js';
import { DEFAULT_PRICE_FILE, readPriceFile } from './cost/prices.js';
import { readRecordedCounts } from './cost/recorded-counts.js';

/**
 * `npm run cost`: gw's own AWS bill for a traffic shape, line by line, per month and per million requests, for the
 * gateway on classic Lambda or on Lambda Managed Instances, and the break-even volume between the two (issue #44).
 * `--json` prints the same figures as JSON; `--docs` prints docs/deploy.md's generated tables.
 */
const USAGE = `usage: npm run cost -- [--requests-per-second N] [--model-latency-s S] [--compute lambda|managed-instances]
  [--memory-mb MB] [--instance-type TYPE] [--concurrency-per-environment 1..1600] [--min-environments N] [--nat-gateways N]
  [--egress nat-gateway|nat-instance] [--nat-instance-type TYPE] [--answer-kb KB] [--request-kb KB] [--waf on|off]
  [--access-log full|lean|off] [--xray-rate 0..1] [--system-log-level info|warn] [--prices FILE] [--json] [--docs]`;

/** AWS's ceiling for PerExecutionEnvironmentMaxConcurrency (Lambda API reference, LambdaManagedInstancesCapacityProviderConfig). */
export const MAX_CONCURRENCY_PER_ENVIRONMENT = 1600;

export function costInputsFrom(values: Record<string, string | boolean | undefined>): CostInputs {
  const number = (name: string, fallback: number, min = 0) => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!Number.isFinite(parsed) || parsed < min) throw new Error(`--${name} must be a number ≥ ${min}, not ${String(raw)}`);
    return parsed;
  };
  const onOff = (name: string, fallback: boolean) => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    if (raw !== 'on' && raw !== 'off') throw new Error(`--${name} must be on or off, not ${String(raw)}`);
    return raw === 'on';
  };
  const accessLog = (values['access-log'] ?? DEFAULT_INPUTS.accessLog) as string;
  if (accessLog !== 'full' && accessLog !== 'lean' && accessLog !== 'off') throw new Error(`--access-log must be full, lean or off, not ${accessLog}`);
  const xrayRate = values['xray-rate'] === undefined ? undefined : number('xray-rate', 0);
  if (xrayRate !== undefined && xrayRate > 1) throw new Error(`--xray-rate must be a number from 0 to 1, not ${xrayRate}`);
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T | undefined): T | undefined => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    if (!allowed.includes(raw as T)) throw new Error(`--${name} must be ${allowed.join(' or ')}, not ${String(raw)}`);
    return raw as T;
  };
  const egress = oneOf('egress', ['nat-gateway', 'nat-instance'] as const, DEFAULT_INPUTS.egress)!;
  const systemLogLevel = oneOf('system-log-level', ['info', 'warn'] as const, undefined);
  const concurrencyPerEnvironment = number('concurrency-per-environment', DEFAULT_INPUTS.concurrencyPerEnvironment, 1);
  if (concurrencyPerEnvironment > MAX_CONCURRENCY_PER_ENVIRONMENT) throw new Error(`--concurrency-per-environment must be at most ${MAX_CONCURRENCY_PER_ENVIRONMENT} (AWS's maximum), not ${concurrencyPerEnvironment}`);
  const compute = (values.compute ?? DEFAULT_INPUTS.compute) as string;
  if (compute !== 'lambda' && compute !== 'managed-instances') throw new Error(`--compute must be lambda or managed-instances, not ${compute}`);
  return {
    requestsPerSecond: number('requests-per-second', DEFAULT_INPUTS.requestsPerSecond, 0.001),
    modelLatencyS: number('model-latency-s', DEFAULT_INPUTS.modelLatencyS),
    compute: compute as Compute,
    memoryMb: number('memory-mb', DEFAULT_INPUTS.memoryMb, 128),
    instanceType: (values['instance-type'] as string | undefined) ?? DEFAULT_INPUTS.instanceType,
    concurrencyPerEnvironment,
    minEnvironments: number('min-environments', DEFAULT_INPUTS.minEnvironments),
    natGateways: number('nat-gateways', DEFAULT_INPUTS.natGateways, 1),
    egress,
    natInstanceType: (values['nat-instance-type'] as string | undefined) ?? DEFAULT_INPUTS.natInstanceType,
    answerKb: number('answer-kb', DEFAULT_INPUTS.answerKb),
    requestKb: number('request-kb', DEFAULT_INPUTS.requestKb),
    waf: onOff('waf', DEFAULT_INPUTS.waf),
    accessLog,
    ...(xrayRate === undefined ? {} : { xrayRate }),
    ...(systemLogLevel === undefined ? {} : { systemLogLevel }),
  };
}

const OPTIONS = {
  'requests-per-second': { type: 'string' },
  'model-latency-s': { type: 'string' },
  compute: { type: 'string' },
  'memory-mb': { type: 'string' },
  'instance-type': { type: 'string' },
  'concurrency-per-environment': { type: 'string' },
  'min-environments': { type: 'string' },
  'nat-gateways': { type: 'string' },
  egress: { type: 'string' },
  'nat-instance-type': { type: 'string' },
  'system-log-level': { type: 'string' },
  'answer-kb': { type: 'string' },
  'request-kb': { type: 'string' },
  waf: { type: 'string' },
  'access-log': { type: 'string' },
  'xray-rate': { type: 'string' },
  prices: { type: 'string' },
  json: { type: 'boolean' },
  docs: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

export function runCost(argv: string[]): string {
  const { values } = parseArgs({ args: argv, options: OPTIONS, strict: true });
  if (values.help) return USAGE;
  const prices = readPriceFile(values.prices ?? DEFAULT_PRICE_FILE);
  const counts = readRecordedCounts();
  if (values.docs) return renderDocsTables(prices, counts);
  const inputs = costInputsFrom(values);
  const result = computeCost(inputs, prices, counts);
  const breakEven = breakEvenRequestsPerSecond(inputs, prices, counts);
  const breakEvenFigure = breakEven === null ? null : { requestsPerSecond: breakEven, requestsPerMonth: requestsPerMonth(breakEven) };
  if (values.json) return JSON.stringify({ prices: { region: prices.region, asOf: prices.asOf }, ...result, breakEven: breakEvenFigure }, null, 2);
  const money = (value: number) => `$${value.toFixed(2)}`;
  const width = Math.max(...result.lines.map((line) => line.item.length));
  const out = [
    `gw's own AWS cost: ${inputs.compute}, ${inputs.requestsPerSecond} requests/s (${(result.requestsPerMonth / 1e6).toFixed(1)} M a month), ${inputs.modelLatencyS} s model latency; ${prices.region} prices of ${prices.asOf}`,
    '',
    `${'item'.padEnd(width)}  ${'per month'.padStart(12)}  ${'per million'.padStart(11)}  basis`,
    ...result.lines.map((line) => `${line.item.padEnd(width)}  ${money(line.perMonth).padStart(12)}  ${money(line.perMillion).padStart(11)}  ${line.basis}`),
    `${'total'.padEnd(width)}  ${money(result.perMonth).padStart(12)}  ${money(result.perMillion).padStart(11)}`,
    '',
    breakEvenFigure
      ? `break-even between lambda and managed-instances at this latency: ${breakEvenFigure.requestsPerSecond.toFixed(2)} requests/s (${(breakEvenFigure.requestsPerMonth / 1e6).toFixed(1)} M a month)`
      : 'break-even: none between 0.01 and 10,000 requests/s',
  ];
  return out.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(runCost(process.argv.slice(2)));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exitCode = 2;
  }
}
