import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../../infra/local/api-gateway-event.js';
import { scheduledEvent } from '../../../infra/local/server.js';
import { generateRawApiKey, hashApiKey, maskApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository, type ApiKeyRecord } from '../../../shared/store/api-key-repository.js';
import { AuditLogRepository } from '../../../shared/store/audit-log-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

type ScheduledHandler = (event: unknown, context: unknown) => Promise<{ expired: number }>;

// The local timers are off (0): only the test invokes the handler, exactly as EventBridge would.
let gateway: TestGateway;
let upstream: MockUpstream;
let handler: ScheduledHandler;
const keys = () => new ApiKeyRepository();

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway({ GW_LOCAL_SCHEDULE_INTERVAL_MS: '0' });
  handler = (await import('../../../functions/expire-api-keys/handler.js')).handler as unknown as ScheduledHandler;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const invoke = () => handler(scheduledEvent('expire-api-keys', 'us-east-1'), localLambdaContext('gw-expire-api-keys'));

/** A workspace key stored with the given expiry (the API refuses past expiries, so it is stored directly). */
async function storeKey(expiresAt?: string): Promise<{ raw: string; record: ApiKeyRecord }> {
  const raw = generateRawApiKey();
  const record: ApiKeyRecord = {
    id: randomUUID(),
    key_hash: hashApiKey(raw),
    masked: maskApiKey(raw),
    name: 'expiring key',
    kind: 'workspace',
    type: 'service',
    organisation_id: gateway.bootstrap.organisationId,
    workspace_id: gateway.bootstrap.workspaceId,
    scopes: ['completions:write'],
    status: 'active',
    created_at: new Date(Date.now() - 3_600_000).toISOString(),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
  };
  await keys().create(record);
  return { raw, record };
}

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

async function stored(record: ApiKeyRecord): Promise<ApiKeyRecord> {
  return (await keys().findById(record.id))!.record;
}

async function expiryEvents(keyId: string) {
  const page = await new AuditLogRepository().list({ organisationId: gateway.bootstrap.organisationId }, { action: 'api_key.expire', resource_id: keyId }, 100);
  return page.items;
}

describe('functions/expire-api-keys', () => {
  it('expires keys past their expiry (refused from then on), leaves the others, and a second run changes nothing', async () => {
    const pastOne = await storeKey(minutesFromNow(-10));
    const pastTwo = await storeKey(minutesFromNow(-1));
    const future = await storeKey(minutesFromNow(60));
    const never = await storeKey();

    const first = await invoke();
    expect(first.expired).toBeGreaterThanOrEqual(2);
    for (const key of [pastOne, pastTwo]) {
      expect((await stored(key.record)).status).toBe('expired');
      expect(await expiryEvents(key.record.id)).toEqual([
        expect.objectContaining({ action: 'api_key.expire', outcome: 'success', actor: { type: 'system', id: 'expire-api-keys' }, workspace_id: gateway.bootstrap.workspaceId }),
      ]);
      const refused = await gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }, {
        'x-gw-api-key': key.raw,
        'x-gw-provider': 'openai',
        'x-gw-custom-host': upstream.url,
        authorization: 'Bearer sk-test',
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: { message: 'The API key has expired', type: 'authentication_error', code: 'api_key_expired', param: null }, status: 'failure' });
    }
    const futureBefore = await stored(future.record);
    expect(futureBefore.status).toBe('active');
    expect((await stored(never.record)).status).toBe('active');
    // The future key is still queued for its own time.
    expect((await keys().dueForExpiry(minutesFromNow(61), 1000)).map((record) => record.id)).toContain(future.record.id);

    const expiredBefore = await Promise.all([pastOne, pastTwo].map((key) => stored(key.record)));
    const second = await invoke();
    expect(second.expired).toBe(0);
    expect(await Promise.all([pastOne, pastTwo].map((key) => stored(key.record)))).toEqual(expiredBefore);
    expect(await stored(future.record)).toEqual(futureBefore);
    expect(await expiryEvents(pastOne.record.id)).toHaveLength(1);
  });

  it('two runs at once expire each key exactly once', async () => {
    const due = await Promise.all(Array.from({ length: 6 }, (_, index) => storeKey(minutesFromNow(-5 - index))));
    const [one, two] = await Promise.all([invoke(), invoke()]);
    expect(one.expired + two.expired).toBe(6);
    for (const key of due) {
      expect((await stored(key.record)).status).toBe('expired');
      expect(await expiryEvents(key.record.id)).toHaveLength(1);
    }
  });
});
