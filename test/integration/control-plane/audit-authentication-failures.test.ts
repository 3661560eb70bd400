import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { logger } from '../../../shared/observability/logger.js';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { AuditLogRepository, UNKNOWN_ORGANISATION } from '../../../shared/store/audit-log-repository.js';
import { keys } from '../../../shared/store/keys.js';
import { MAIN_TABLE, tableName } from '../../../shared/store/table-definitions.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { api, expectError, newKey } from './identities-support.js';

/** Bounded audit writes: anonymous failures cost no store write, every audit item expires after AUDIT_LOG_RETENTION_DAYS. */
const RETENTION_DAYS = 7;
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ AUDIT_LOG_RETENTION_DAYS: String(RETENTION_DAYS) });
});
afterAll(async () => {
  await gateway?.close();
});

/** The raw items of an audit partition, TTL attribute included (the API never shows it). */
async function rawAuditItems(organisationId: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamoDocumentClient().send(
      new QueryCommand({
        TableName: tableName(settings(), MAIN_TABLE),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.auditOfOrganisation(organisationId) },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

const expiresInRetention = (ttl: unknown, writtenAt: number) => {
  const expected = Math.floor(writtenAt / 1000) + RETENTION_DAYS * 86_400;
  // The counter's TTL counts from the start of its minute.
  expect(ttl).toBeGreaterThanOrEqual(expected - 120);
  expect(ttl).toBeLessThanOrEqual(expected + 60);
};

describe('audit writes of refused authentications', () => {
  it('cost amplification: 200 concurrent unauthenticated requests write no audit item; gw’s own log counts them per source, minute and code', async () => {
    // Issue #44: anyone can send these, so they must not cost a store write (no item, not even a counter).
    await drainAllBackgroundWork();
    const before = await rawAuditItems(UNKNOWN_ORGANISATION);
    const warned = vi.spyOn(logger, 'warn');
    try {
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => api(gateway, 'GET', '/v1/workspaces', { key: `gwk_never_issued_${String(i).padStart(24, '0')}` })),
      );
      for (const reply of replies) expectError(reply, 401, 'api_key_invalid');
      await drainAllBackgroundWork();
      expect(await rawAuditItems(UNKNOWN_ORGANISATION)).toEqual(before);
      const aggregates = warned.mock.calls.filter(([message]) => message === 'authentication failed (anonymous, aggregated)').map(([, fields]) => fields as unknown as Record<string, unknown>);
      const invalid = aggregates.filter((fields) => fields.code === 'api_key_invalid');
      // All from 127.0.0.1: one aggregate for the minute, two if the burst straddled a minute boundary.
      expect(invalid.length).toBeGreaterThanOrEqual(1);
      expect(invalid.length).toBeLessThanOrEqual(2);
      expect(invalid.reduce((sum, fields) => sum + (fields.count as number), 0)).toBe(200);
      expect(JSON.stringify(aggregates)).not.toContain('gwk_never_issued');
    } finally {
      warned.mockRestore();
    }
  }, 180_000);

  it('counts each code apart in the log, so a missing credential and an unknown key stay distinguishable', async () => {
    await drainAllBackgroundWork();
    const warned = vi.spyOn(logger, 'warn');
    try {
      expectError(await api(gateway, 'GET', '/v1/workspaces', { key: null }), 401, 'api_key_missing');
      expectError(await api(gateway, 'GET', '/v1/workspaces', { key: 'gwk_another_unknown_key_0000000000' }), 401, 'api_key_invalid');
      await drainAllBackgroundWork();
      const codes = new Set(warned.mock.calls.filter(([message]) => message === 'authentication failed (anonymous, aggregated)').map(([, fields]) => (fields as unknown as { code: string }).code));
      expect(codes).toEqual(new Set(['api_key_invalid', 'api_key_missing']));
    } finally {
      warned.mockRestore();
    }
  });

  it('still files a failure under the organisation when the key is recognised, one event per request, with a TTL', async () => {
    const key = await newKey(gateway, { scopes: ['api_keys:read'] });
    await api(gateway, 'DELETE', `/v1/api-keys/${key.id}`);
    const started = Date.now();
    for (let i = 0; i < 3; i++) expectError(await api(gateway, 'GET', '/v1/workspaces', { key: key.key }), 401, 'api_key_revoked');
    const items = (await rawAuditItems(gateway.bootstrap.organisationId)).filter((item) => item.action === 'authentication.failed' && (item.actor as { id?: string }).id === key.id);
    expect(items).toHaveLength(3);
    for (const item of items) expiresInRetention(item.ttl, started);
  });

  it('gives every audited mutation a TTL, and hides an expired event from readers before TTL deletion runs', async () => {
    const started = Date.now();
    await newKey(gateway, { scopes: ['api_keys:read'], name: 'ttl probe' });
    const creations = (await rawAuditItems(gateway.bootstrap.organisationId)).filter((item) => item.action === 'api_key.create');
    expect(creations.length).toBeGreaterThan(0);
    for (const item of creations.filter((entry) => Date.parse(entry.at as string) >= started - 1000)) expiresInRetention(item.ttl, started);

    // An event written longer ago than the retention: still in the table (dynalite never deletes), gone for readers.
    const repository = new AuditLogRepository();
    const old = new Date(Date.now() - (RETENTION_DAYS + 1) * 86_400_000).toISOString();
    await repository.append({ id: 'expired-event', at: old, action: 'probe.expired', resource_type: 'probe', outcome: 'success', organisation_id: gateway.bootstrap.organisationId });
    expect((await rawAuditItems(gateway.bootstrap.organisationId)).some((item) => item.id === 'expired-event')).toBe(true);
    const listed = await repository.list({ organisationId: gateway.bootstrap.organisationId }, { action: 'probe.expired' }, 100);
    expect(listed.items).toEqual([]);
  });

  it('never lets another organisation read the anonymous counters', async () => {
    const listed = await api<{ data: Array<{ action: string; actor: { type: string } }> }>(gateway, 'GET', '/v1/audit-logs?action=authentication.failed');
    expect(listed.status).toBe(200);
    expect(listed.body.data.every((event) => event.actor.type !== 'anonymous')).toBe(true);
  });
});
