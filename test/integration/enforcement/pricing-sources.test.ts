import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logStoreKey } from '../../../shared/observability/pricing/sources.js';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { LOGS_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { chat, requestLog, viaMock } from './enforcement-support.js';

// The whole chain configured through settings: the config proxy (a mock server), the log store (gw's logs
// table), and the shipped prices. The OpenAI mock's usage is 9 prompt + 12 completion tokens.
let gateway: TestGateway;
let upstream: MockUpstream;
let configProxy: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  configProxy = await startMockUpstream((request) =>
    request.path === '/pricing/openai' ? { json: { models: { 'proxy-priced': { input_per_mtok: 1_000_000, output_per_mtok: 0 } } } } : { status: 404, json: {} },
  );
  gateway = await startTestGateway({
    MODEL_CONFIGS_PROXY_FETCH_ENABLED: 'ON',
    MODEL_CONFIGS_PROXY_URL: configProxy.url,
    MODEL_CONFIGS_PRICING_LOG_STORE_PATH: 'gw/model-configs/pricing',
  });
  const document = { models: { 'log-store-priced': { input_per_mtok: 0, output_per_mtok: 1_000_000 }, 'proxy-priced': { input_per_mtok: 5, output_per_mtok: 5 } } };
  await dynamoDocumentClient().send(
    new PutCommand({ TableName: tableName(settings(), LOGS_TABLE), Item: { ...logStoreKey('gw/model-configs/pricing', 'openai'), document: JSON.stringify(document) } }),
  );
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await configProxy?.close();
});

async function loggedCost(model: string): Promise<unknown> {
  const traceId = `pricing-${model}-${Date.now()}`;
  const answer = await chat(gateway, { ...viaMock(upstream), 'x-gw-trace-id': traceId }, { model, messages: [{ role: 'user', content: 'Hi' }] });
  expect(answer.status).toBe(200);
  return (await requestLog(traceId)).cost;
}

describe('pricing sources configured by MODEL_CONFIGS_* settings', () => {
  it('the proxy first: 9 prompt tokens at $1 each', async () => {
    expect(await loggedCost('proxy-priced')).toBe(9);
  });

  it('then the log store: 12 completion tokens at $1 each', async () => {
    expect(await loggedCost('log-store-priced')).toBe(12);
  });

  it('then the shipped prices: gpt-4o-mini at $0.15 / $0.60 per million', async () => {
    expect(await loggedCost('gpt-4o-mini')).toBeCloseTo((9 * 0.15 + 12 * 0.6) / 1_000_000, 12);
  });

  it('and null, never 0, for a model nobody prices', async () => {
    expect(await loggedCost('priced-nowhere')).toBeNull();
  });
});
