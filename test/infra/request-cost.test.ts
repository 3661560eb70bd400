import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../shared/observability/background.js';
import {
  measureConsumedCapacity,
  recordedConsumedCapacity,
  recordedOperationCounts,
  resetRecordedOperationCounts,
} from '../../shared/store/recording/aws-operation-recorder.js';
import { api, newKey } from '../integration/control-plane/identities-support.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { formatCostTable, REQUEST_LOG_RESOURCES, summarise, type ScenarioCost } from './support/request-cost.js';

/**
 * What one warm gateway request costs in AWS operations and DynamoDB capacity units, per kind of request, measured by
 * the recorder the grant check uses (shared/store/recording/): every operation the real gateway issues through the
 * real SDK clients against the embedded store, and the units the store answers with ReturnConsumedCapacity. The
 * request log (the logs table: log items and rollups) is left out: it is leaving DynamoDB. docs/deploy.md's table
 * "DynamoDB per request (measured)" is this output; the expectations below keep it from growing unnoticed.
 *
 * Caches are warm and their lifetimes long, so what is counted is the steady state of a warm sandbox; the reads a
 * cache refresh makes (every GW_*_CACHE_TTL_MS per sandbox) are amortised over every request in that time.
 */
const REQUESTS = 10;

let gateway: TestGateway;
let upstream: MockUpstream;
const results: ScenarioCost[] = [];

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({
    GW_AUTH_CACHE_TTL_MS: '600000',
    GW_POLICY_CACHE_TTL_MS: '300000',
    GW_CONFIG_CACHE_TTL_MS: '300000',
    GW_VIRTUAL_KEY_CACHE_TTL_MS: '60000',
  });
  measureConsumedCapacity(true);
});
afterAll(async () => {
  measureConsumedCapacity(false);
  console.log(formatCostTable(results));
  await gateway?.close();
  await upstream?.close();
});

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };

/** A key of its own per scenario, so a policy on one key applies to that scenario only. */
async function scenarioKey(): Promise<{ id: string; key: string }> {
  const created = await newKey(gateway, { scopes: ['completions:write'] });
  return { id: created.id, key: created.key };
}

/** One warm-up request (fills the caches, creates counters), then REQUESTS counted ones. */
async function measure(name: string, headers: Record<string, string>, expectHeader?: [string, string]): Promise<ScenarioCost> {
  const send = async (counted: boolean) => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(chat) });
    expect(response.status, await response.clone().text()).toBe(200);
    if (counted && expectHeader) expect(response.headers.get(expectHeader[0])).toBe(expectHeader[1]);
    await response.text();
  };
  await send(false);
  await drainAllBackgroundWork();
  resetRecordedOperationCounts();
  for (let i = 0; i < REQUESTS; i++) await send(true);
  await drainAllBackgroundWork();
  const cost = summarise(name, REQUESTS, recordedOperationCounts(), recordedConsumedCapacity());
  results.push(cost);
  return cost;
}

const providerHeaders = { 'x-gw-provider': 'openai', 'x-gw-custom-host': '', authorization: 'Bearer sk-provider-secret' };

describe('AWS operations and DynamoDB units per warm gateway request (request log excluded)', () => {
  it('(a) a plain request with a gw key', async () => {
    const { key } = await scenarioKey();
    const cost = await measure('plain (gw key)', { ...providerHeaders, 'x-gw-custom-host': upstream.url, 'x-gw-api-key': key });
    // The budget's charge is batched (shared/gateway/enforcement/charge-buffer.ts): one write per counter per flush
    // where requests share a process (local runtime, managed instances); classic Lambda flushes per invocation.
    expect(Object.keys(cost.operations)).toEqual(['dynamodb UpdateItem table/main']);
    expect(cost.operations['dynamodb UpdateItem table/main']).toBeLessThan(1);
    expect(cost.units.read).toBe(0);
    expect(cost.units.write).toBeLessThan(1);
    // Request logs are rows of the log engine (issue #32): not one DynamoDB call is made for them.
    expect(cost.excluded).toEqual([]);
  });

  it('(b) with a virtual key', async () => {
    const { key } = await scenarioKey();
    const virtualKey = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'openai', credential: 'sk-vk-cost', custom_host: upstream.url } });
    expect(virtualKey.status).toBe(201);
    const cost = await measure('virtual key', { 'x-gw-api-key': key, 'x-gw-virtual-key': virtualKey.body.id });
    // The budget's charge is batched (shared/gateway/enforcement/charge-buffer.ts): one write per counter per flush
    // where requests share a process (local runtime, managed instances); classic Lambda flushes per invocation.
    expect(Object.keys(cost.operations)).toEqual(['dynamodb UpdateItem table/main']);
    expect(cost.operations['dynamodb UpdateItem table/main']).toBeLessThan(1);
    expect(cost.units.read).toBe(0);
    expect(cost.units.write).toBeLessThan(1);
  });

  it('(c) with one rate-limit policy', async () => {
    const { id, key } = await scenarioKey();
    const policy = await api(gateway, 'POST', '/v1/policies/rate-limits', {
      body: { name: 'cost rate limit', conditions: [{ key: 'api_key', value: id }], group_by: [{ key: 'api_key' }], type: 'requests', unit: 'rpm', value: 100_000 },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const cost = await measure('one rate-limit policy', { ...providerHeaders, 'x-gw-custom-host': upstream.url, 'x-gw-api-key': key });
    // The policy's counter is leased (shared/gateway/enforcement/quota-leases.ts): a process takes a growing
    // share of the quota in one write and admits against it locally, and the usage charge is batched
    // (charge-buffer.ts), so the writes per request fall below one.
    expect(Object.keys(cost.operations)).toEqual(['dynamodb UpdateItem table/main']);
    expect(cost.operations['dynamodb UpdateItem table/main']).toBeLessThan(1);
    expect(cost.units.read).toBe(0);
    expect(cost.units.write).toBeLessThan(1);
  });

  it('(d) with a budget', async () => {
    const { id, key } = await scenarioKey();
    const policy = await api(gateway, 'POST', '/v1/policies/usage-limits', {
      body: {
        name: 'cost budget',
        conditions: [{ key: 'api_key', value: id }],
        group_by: [{ key: 'api_key' }],
        type: 'tokens',
        unit: 'rpd',
        value: 100_000_000,
        credit_limit: { type: 'cost', value: 1_000 },
        periodic_reset: 'monthly',
      },
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const cost = await measure('a budget', { ...providerHeaders, 'x-gw-custom-host': upstream.url, 'x-gw-api-key': key });
    // The cost and token counters are leased (amount-leases.ts): each estimate is reserved from a share in memory
    // and settled there, with no reservation record (a crash costs at most the share); before, 7 writes per request.
    expect(Object.keys(cost.operations)).toEqual(['dynamodb UpdateItem table/main']);
    expect(cost.operations['dynamodb UpdateItem table/main']).toBeLessThan(1);
    expect(cost.units.read).toBe(0);
    expect(cost.units.write).toBeLessThan(1);
  });

  it('(e) a cache hit', async () => {
    const { key } = await scenarioKey();
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-provider-secret', custom_host: upstream.url, cache: { mode: 'simple', max_age: 3600 } });
    const cost = await measure('cache hit', { 'x-gw-api-key': key, 'x-gw-config': config }, ['x-gw-cache-status', 'HIT']);
    // A warm hit of a hot entry is served from the process's memory (shared/cache/hot-entries.ts, within the
    // entry's TTL): no cache-table read; and a hit costs no tokens, so no counter moves.
    expect(cost.operations).toEqual({});
    expect(cost.units).toEqual({ read: 0, write: 0 });
  });

  it('excludes exactly the request log (the logs table)', () => {
    for (const result of results) for (const operation of result.excluded) expect(REQUEST_LOG_RESOURCES.some((prefix) => operation.includes(prefix)), operation).toBe(true);
  });
});
