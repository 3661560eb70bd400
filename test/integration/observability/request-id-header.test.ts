import { describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';
import { api } from '../control-plane/identities-support.js';
import { chat, viaMock } from './observability-support.js';

/**
 * Issue #42: a user finds the log record of a call from its response alone. Every gateway response carries
 * `x-gw-request-id`, the id of its log record: answers, streams and errors alike (before, no response named it).
 */
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

async function recordOf(response: Response): Promise<{ id: string; status: number; error_code?: string | null }> {
  const id = response.headers.get('x-gw-request-id');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await drainAllBackgroundWork();
  const found = await api<{ id: string; status: number; error_code?: string | null }>(gateway, 'GET', `/v1/logs/${id}`);
  expect(found.status, JSON.stringify(found.body)).toBe(200);
  expect(found.body.id).toBe(id);
  return found.body;
}

describe('every gateway response names its log record (x-gw-request-id)', () => {
  it('an answer, a stream and an error after authentication: GET /v1/logs/{x-gw-request-id} finds each', async () => {
    const answered = await gateway.post('/v1/chat/completions', chat, viaMock(upstream.url));
    expect(answered.status).toBe(200);
    expect((await recordOf(answered)).status).toBe(200);

    const streamed = await gateway.post('/v1/chat/completions', { ...chat, stream: true }, viaMock(upstream.url));
    expect(streamed.status).toBe(200);
    await readSseEvents(streamed);
    expect((await recordOf(streamed)).status).toBe(200);

    const refused = await gateway.post('/v1/chat/completions', { model: 'gpt-4o-mini', messages: 'not a list' }, viaMock(upstream.url));
    expect(refused.status).toBe(400);
    expect((await recordOf(refused)).status).toBe(400);
  });

  it('the id is gw’s own: a client cannot choose it, and an unauthenticated refusal carries one too', async () => {
    const chosen = '00000000-0000-4000-8000-000000000000';
    const answered = await gateway.post('/v1/chat/completions', chat, { ...viaMock(upstream.url), 'x-gw-request-id': chosen });
    expect(answered.headers.get('x-gw-request-id')).not.toBe(chosen);
    expect((await recordOf(answered)).status).toBe(200);

    const unauthenticated = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-gw-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
