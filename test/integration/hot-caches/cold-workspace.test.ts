import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments, InitializeMiddleware } from '@smithy/types';
import { beforeAll, describe, expect, it } from 'vitest';
import { sequentialDepth, type StoreCall } from '../../../bench/measure/store-proxy.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { dynamoDocumentClient } from '../../../shared/store/dynamo-client.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { createKey, createOrganisation } from '../control-plane/policies-support.js';
import { chat, viaMock } from '../enforcement/enforcement-support.js';

/**
 * The first request of a workspace no cache has seen (in a fresh Lambda, every workspace): how many store round
 * trips it waits for, one after another, before its call reaches the provider. Every store call is made to take
 * STORE_LATENCY_MS, as DynamoDB is a network hop away on AWS, and its start and end are recorded.
 */
const STORE_LATENCY_MS = 40;
let gateway: TestGateway;
let upstream: MockUpstream;
const mock = openAIMockHandler();
let upstreamReachedAt: number | undefined;
useGatewayWithUpstream(
  (request) => {
    upstreamReachedAt ??= performance.now();
    return mock(request);
  },
  (started) => ({ gateway, upstream } = started),
);

let timing = false;
const calls: Array<StoreCall & { command: string }> = [];
beforeAll(() => {
  const stack = dynamoDocumentClient().middlewareStack as unknown as {
    add(middleware: InitializeMiddleware<object, object>, options: { step: 'initialize'; name: string; override?: boolean }): void;
  };
  stack.add(
    (next: InitializeHandler<object, object>, context: HandlerExecutionContext) => async (args: InitializeHandlerArguments<object>) => {
      if (!timing) return next(args);
      const call = { command: context.commandName ?? '?', receivedAt: performance.now(), answeredAt: undefined as number | undefined } as StoreCall & { command: string };
      calls.push(call);
      await new Promise((resolve) => setTimeout(resolve, STORE_LATENCY_MS));
      try {
        return await next(args);
      } finally {
        call.answeredAt = performance.now();
      }
    },
    { step: 'initialize', name: 'coldWorkspaceStoreTimer', override: true },
  );
});

describe('the first request of a workspace no cache holds', () => {
  it('waits for two store round trips in sequence: its key, then the workspace (guardrail defaults, policies, budget) all at once', async () => {
    const { organisationId, workspaceId } = await createOrganisation();
    const key = await createKey({ organisationId, workspaceId, scopes: ['completions:write'] });
    await drainAllBackgroundWork();
    calls.length = 0;
    upstreamReachedAt = undefined;
    timing = true;
    try {
      const answer = await chat(gateway, { ...viaMock(upstream, { _user: 'cold-workspace' }), 'x-gw-api-key': key.raw });
      expect(answer.status).toBe(200);
    } finally {
      timing = false;
    }
    expect(upstreamReachedAt).toBeDefined();
    const before = calls.filter((call) => call.receivedAt < upstreamReachedAt!);
    const reads = before.map((call) => call.command).sort();
    // The key, the workspace's default guardrails, its active policies and its budget.
    expect(reads.join(' '), 'the store calls before the provider').toMatch(/Get.*Query/);
    expect(before.length).toBeGreaterThanOrEqual(4);
    expect(sequentialDepth(before, upstreamReachedAt!), JSON.stringify(before.map(({ command, receivedAt, answeredAt }) => ({ command, receivedAt: Math.round(receivedAt), answeredAt: answeredAt && Math.round(answeredAt) })))).toBe(2);
  });
});
