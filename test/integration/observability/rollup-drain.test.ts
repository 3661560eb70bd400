import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainBackgroundWork } from '../../../shared/observability/background.js';
import type { RequestLogRecord } from '../../../shared/observability/log-record.js';
import { addToRollups, hourBucket } from '../../../shared/observability/rollups.js';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { logKeys } from '../../../shared/store/log-keys.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

// Rollups are summed in memory and written by a timer (or a drain). A drain that starts while the timer's writes
// are still on their way must wait for them: a Lambda freezes after its drain, and the local runtime closes its
// store after it (an UpdateItem arriving then failed with "Database is closed").

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

const SLOW_MS = 600;

describe('rollups and the drain', () => {
  it('a drain waits for the rollup writes a timer flush has in flight', async () => {
    const workspace = `ws-${randomUUID()}`;
    // Every rollup write of this workspace takes SLOW_MS longer, so the timer's flush is still running when the drain starts.
    const client = dynamoDocumentClient();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const rollupWrite = context.commandName === 'UpdateItemCommand' && JSON.stringify((args as { input?: unknown }).input ?? {}).includes(workspace);
        if (rollupWrite) await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
        return next(args);
      },
      { step: 'initialize', name: 'slowRollupsForTest' },
    );
    try {
      const createdAt = new Date().toISOString();
      addToRollups({ workspace_id: workspace, organisation_id: 'org-drain', created_at: createdAt, outcome: 'success', latency_ms: 12, model: 'gpt-4o', provider: 'openai', api_key_id: 'key-drain', metadata: {}, cache_status: 'DISABLED' } as unknown as RequestLogRecord);
      // Past the accumulator's 500 ms delay: its timer flush has started and is held by the slow store.
      await new Promise((resolve) => setTimeout(resolve, 700));
      await drainBackgroundWork();
      const item = await client.send(
        new GetCommand({ TableName: settings().GW_TABLE_LOGS, Key: { pk: logKeys.rollupPartition('WS', workspace, 'model'), sk: logKeys.rollupSort(hourBucket(createdAt), 'gpt-4o') } }),
      );
      expect(item.Item).toMatchObject({ requests: 1 });
    } finally {
      client.middlewareStack.remove('slowRollupsForTest');
    }
  });
});
