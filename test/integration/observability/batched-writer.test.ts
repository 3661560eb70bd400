import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainBackgroundWork, runInBackground } from '../../../shared/observability/background.js';
import { BatchedTableWriter } from '../../../shared/observability/batched-writer.js';
import { settings } from '../../../shared/settings.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

async function itemsUnder(pk: string) {
  const result = await dynamoDocumentClient().send(
    new QueryCommand({ TableName: settings().GW_TABLE_LOGS, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
  );
  return result.Items ?? [];
}

describe('BatchedTableWriter', () => {
  it('writes every queued record, more than one batch of 25', async () => {
    const writer = new BatchedTableWriter(() => settings().GW_TABLE_LOGS);
    await Promise.all(Array.from({ length: 60 }, (_, i) => writer.put({ pk: 'BATCH#many', sk: String(i).padStart(3, '0') })));
    expect(await itemsUnder('BATCH#many')).toHaveLength(60);
  });

  it('a drain sends what the buffer holds at once, without waiting for its delay', async () => {
    const writer = new BatchedTableWriter(() => settings().GW_TABLE_LOGS, 60_000);
    runInBackground('test write', () => writer.put({ pk: 'BATCH#drain', sk: 'only' }));
    await drainBackgroundWork();
    expect(await itemsUnder('BATCH#drain')).toHaveLength(1);
  });

  it('rejects the queued writes when the table cannot take them', async () => {
    const writer = new BatchedTableWriter(() => 'no-such-table', 1);
    await expect(writer.put({ pk: 'x', sk: 'y' })).rejects.toThrow();
  });
});
