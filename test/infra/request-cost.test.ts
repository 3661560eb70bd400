import { describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../shared/observability/background.js';
import { recordedOperationCounts, resetRecordedOperationCounts, type RecordedOperation } from '../../shared/store/recording/aws-operation-recorder.js';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import type { MockUpstream } from '../support/mock-upstream.js';

/**
 * The DynamoDB reads and writes of one warm gateway request, counted by the recorder the grant check uses
 * (shared/store/recording/): the figures docs/deploy.md's cost table is computed from. The bounds are what the
 * design promises ("a warm gateway request costs no more than one DynamoDB round trip in the common case" for
 * its reads; counters and the request log for its writes), with room for the after-path to grow a little.
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

const READS = new Set(['GetItem', 'Query', 'BatchGetItem']);
const REQUESTS = 20;

type Counted = RecordedOperation & { count: number };
const perRequest = (operations: Counted[], pick: (operation: Counted) => boolean) =>
  operations.filter(pick).reduce((sum, operation) => sum + operation.count, 0) / REQUESTS;

describe('DynamoDB operations per warm gateway request', () => {
  it('stays within the design: few reads (caches are warm), counters plus a share of a batched log write', async () => {
    const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] };
    const headers = { 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-provider-secret' };
    // Warm the in-memory caches (key, policies, pricing), then count.
    expect((await gateway.post('/v1/chat/completions', chat, headers)).status).toBe(200);
    await drainAllBackgroundWork();
    resetRecordedOperationCounts();
    for (let i = 0; i < REQUESTS; i++) expect((await gateway.post('/v1/chat/completions', chat, headers)).status).toBe(200);
    await drainAllBackgroundWork();

    const gatewayOperations = recordedOperationCounts().filter((operation) => operation.fn === 'gateway' && operation.service === 'dynamodb');
    const reads = perRequest(gatewayOperations, (operation) => READS.has(operation.action));
    const writes = perRequest(gatewayOperations, (operation) => !READS.has(operation.action));
    const table = gatewayOperations.map((operation) => `${operation.action} ${operation.resource}: ${(operation.count / REQUESTS).toFixed(2)}/request`).sort();
    console.log(`warm gateway request: ${reads.toFixed(2)} reads, ${writes.toFixed(2)} write calls\n  ${table.join('\n  ')}`);
    expect(gatewayOperations.length, 'the recorder saw the gateway at all').toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(3);
    expect(writes).toBeLessThanOrEqual(6);
  });
});
