import type { RecordedOperation } from '../../../shared/store/recording/aws-operation-recorder.js';

/**
 * Turns what the recorder counted over a number of gateway requests into per-request figures: operations by
 * service, action and resource, and DynamoDB read and write capacity units. The request log is set aside (by table:
 * the logs table holds the log items and their rollups), because it is leaving DynamoDB.
 */
export const REQUEST_LOG_RESOURCES = ['table/logs'];
const READ_ACTIONS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

export interface ScenarioCost {
  name: string;
  /** `<service> <action> <resource>` → operations per request. */
  operations: Record<string, number>;
  /** DynamoDB capacity units per request, as the store reported them (ReturnConsumedCapacity). */
  units: { read: number; write: number };
  /** The request-log operations left out (`<service> <action> <resource>`). */
  excluded: string[];
}

const perRequest = (total: number, requests: number) => Math.round((total / requests) * 100) / 100;
const isRequestLog = (operation: RecordedOperation) => REQUEST_LOG_RESOURCES.some((prefix) => operation.resource.startsWith(prefix));
const nameOf = (operation: RecordedOperation) => `${operation.service} ${operation.action} ${operation.resource}`;

export function summarise(
  name: string,
  requests: number,
  counts: Array<RecordedOperation & { count: number }>,
  capacity: Array<RecordedOperation & { units: number }>,
): ScenarioCost {
  const gateway = <T extends RecordedOperation>(items: T[]) => items.filter((operation) => operation.fn === 'gateway');
  const totals = new Map<string, number>();
  const excluded = new Set<string>();
  for (const operation of gateway(counts)) {
    if (isRequestLog(operation)) excluded.add(nameOf(operation));
    else totals.set(nameOf(operation), (totals.get(nameOf(operation)) ?? 0) + operation.count);
  }
  const units = { read: 0, write: 0 };
  for (const operation of gateway(capacity)) {
    if (isRequestLog(operation)) continue;
    units[READ_ACTIONS.has(operation.action) ? 'read' : 'write'] += operation.units;
  }
  return {
    name,
    operations: Object.fromEntries([...totals.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, total]) => [key, perRequest(total, requests)])),
    units: { read: perRequest(units.read, requests), write: perRequest(units.write, requests) },
    excluded: [...excluded].sort(),
  };
}

/** The measured table as docs/deploy.md shows it (Markdown). */
export function formatCostTable(results: ScenarioCost[]): string {
  const rows = results.map((result) => {
    const operations = Object.entries(result.operations).map(([operation, count]) => `${operation.replace(/^dynamodb /, '')} ${count}`).join(', ') || 'none';
    return `| ${result.name} | ${operations} | ${result.units.read} | ${result.units.write} |`;
  });
  return ['| request | operations per request (request log excluded) | RCU | WCU |', '|---|---|---|---|', ...rows].join('\n');
}
