import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The test-only recorder behind the grant check. Its own folder, so these made-up operations never reach the
 * run's real record (.test-results/aws-ops/), which scripts/check-grants.ts reads.
 */
const directory = mkdtempSync(join(tmpdir(), 'gw-aws-ops-'));
let recorder: typeof import('../../../shared/store/recording/aws-operation-recorder.js');

beforeAll(async () => {
  process.env.GW_RECORD_AWS_OPERATIONS_DIR = directory;
  recorder = await import('../../../shared/store/recording/aws-operation-recorder.js');
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const lines = () =>
  readdirSync(directory)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the AWS operation recorder', () => {
  it('attributes an operation to the function whose handler is running, through awaits and timers', async () => {
    await recorder.runAsFunction('restore-budgets', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      recorder.recordAwsOperation({ service: 'dynamodb', action: 'Query', resource: 'table/main/index/gsi2' });
    });
    recorder.recordAwsOperation({ service: 'dynamodb', action: 'GetItem', resource: 'table/main' });
    expect(lines()).toEqual(
      expect.arrayContaining([
        { fn: 'restore-budgets', service: 'dynamodb', action: 'Query', resource: 'table/main/index/gsi2' },
        { service: 'dynamodb', action: 'GetItem', resource: 'table/main' },
      ]),
    );
  });

  it('sends work queued by one function as that function, whoever flushes it', () => {
    const sendAsGateway = recorder.runAsFunction('gateway', () => recorder.captureFunctionContext());
    recorder.runAsFunction('control-plane', () => sendAsGateway(() => recorder.recordAwsOperation({ service: 'dynamodb', action: 'BatchWriteItem', resource: 'table/logs' })));
    const batchWrites = lines().filter((line) => line.action === 'BatchWriteItem');
    expect(batchWrites.map((line) => line.fn)).toEqual(['gateway']);
  });

  it('writes each distinct operation once per process but counts every call', () => {
    recorder.resetRecordedOperationCounts();
    for (let i = 0; i < 3; i++) recorder.runAsFunction('gateway', () => recorder.recordAwsOperation({ service: 'dynamodb', action: 'UpdateItem', resource: 'table/main' }));
    expect(lines().filter((line) => line.action === 'UpdateItem')).toHaveLength(1);
    expect(recorder.recordedOperationCounts()).toEqual([{ fn: 'gateway', service: 'dynamodb', action: 'UpdateItem', resource: 'table/main', count: 3 }]);
  });

  it("keeps a labelled handler's own properties (the streaming marker) and runs it as its function", async () => {
    const marker = Symbol.for('gw.test.streaming');
    const handler = Object.assign(async (event: string) => {
      recorder.recordAwsOperation({ service: 'secretsmanager', action: 'GetSecretValue', resource: `secret/gw/virtual-keys/${event}` });
      return event;
    }, { [marker]: true });
    const labelled = recorder.labelHandler('gateway', handler);
    expect((labelled as unknown as Record<symbol, unknown>)[marker]).toBe(true);
    expect(await labelled('ws_1/vk_1')).toBe('ws_1/vk_1');
    expect(lines()).toContainEqual({ fn: 'gateway', service: 'secretsmanager', action: 'GetSecretValue', resource: 'secret/gw/virtual-keys/ws_1/vk_1' });
  });
});
