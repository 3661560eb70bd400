import { expect } from 'vitest';
import type { RequestLog } from '../../../shared/control-plane/logs/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { api, type Page } from '../control-plane/identities-support.js';

export const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

/** Provider headers that send the call to the mock upstream. */
export const viaMock = (url: string) => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': url, authorization: 'Bearer sk-test-upstream-credential-000000' });

/** Lets every after-path (log records, rollups) land, then lists logs with the given query. */
export async function logsWhere(gateway: TestGateway, query: string, key?: string): Promise<RequestLog[]> {
  await drainAllBackgroundWork();
  const reply = await api<Page<RequestLog>>(gateway, 'GET', `/v1/logs?limit=100&${query}`, { key });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}

/** The one log record of a trace. */
export async function logOfTrace(gateway: TestGateway, traceId: string, key?: string): Promise<RequestLog> {
  const records = await logsWhere(gateway, `trace_id=${encodeURIComponent(traceId)}`, key);
  expect(records).toHaveLength(1);
  return records[0];
}
