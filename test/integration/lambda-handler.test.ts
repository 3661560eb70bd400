import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../infra/local/api-gateway-event.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { apiGatewayEvent, RecordingResponseStream } from '../support/lambda.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

type StreamingLambda = (event: unknown, stream: RecordingResponseStream, context: unknown) => Promise<void>;
type BufferedLambda = (event: unknown, context: unknown) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }>;

let gateway: TestGateway;
let upstream: MockUpstream;
let handler: StreamingLambda;

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  // Starting the local runtime installs the awslambda globals and the store the handler needs.
  gateway = await startTestGateway();
  handler = (await import('../../functions/gateway/handler.js')).handler as unknown as StreamingLambda;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const headers = () => ({ 'X-GW-API-Key': gateway.apiKey, 'X-GW-Provider': 'openai', 'X-GW-Custom-Host': upstream.url, Authorization: 'Bearer sk-test' });

describe('the exported gateway Lambda handler', () => {
  it('streams SSE chunks behind the HTTP prelude, one write per upstream chunk batch', async () => {
    const stream = new RecordingResponseStream();
    const event = apiGatewayEvent('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] }, headers());
    upstream.setHandler(openAIMockHandler({ chunkDelayMs: 10 }));
    await handler(event, stream, localLambdaContext('gw-gateway'));
    const { prelude, body, bodyWrites } = stream.decoded();
    expect(prelude.statusCode).toBe(200);
    expect(prelude.headers['content-type']).toContain('text/event-stream');
    expect(prelude.headers['x-gw-provider']).toBe('openai');
    // Several separate writes: the body was streamed, not assembled first.
    expect(bodyWrites.length).toBeGreaterThan(3);
    expect(body.trim().endsWith('data: [DONE]')).toBe(true);
    expect(body).toContain('"content":"Hello "');
  });

  it('passes an upstream error through in the one error shape, status and provider body included', async () => {
    upstream.setHandler(() => ({ status: 429, json: { error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited' } } }));
    try {
      const stream = new RecordingResponseStream();
      await handler(apiGatewayEvent('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] }, headers()), stream, localLambdaContext('gw-gateway'));
      const { prelude, body } = stream.decoded();
      expect(prelude.statusCode).toBe(429);
      expect(prelude.headers['x-gw-trace-id']).toBeTruthy();
      expect(JSON.parse(body)).toMatchObject({ status: 'failure', error: { provider_error: { error: { message: 'slow down' } } } });
      expect(stream.writableEnded).toBe(true);
    } finally {
      upstream.setHandler(openAIMockHandler());
    }
  });

  it('stops reading the upstream when the response stream closes mid-stream', async () => {
    upstream.setHandler(openAIMockHandler({ chunkDelayMs: 20 }));
    const stream = new RecordingResponseStream();
    const writes: Buffer[] = stream.writes;
    // The client goes away after the first body chunk behind the prelude.
    const originalWrite = stream._write.bind(stream);
    stream._write = (chunk, encoding, callback) => {
      originalWrite(chunk, encoding, callback);
      if (writes.length === 3) stream.destroy();
    };
    await handler(apiGatewayEvent('/v1/chat/completions', { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] }, headers()), stream, localLambdaContext('gw-gateway'));
    expect(stream.destroyed).toBe(true);
    expect(Buffer.concat(writes).toString()).not.toContain('[DONE]');
  });

  it('answers errors in the one error shape through the same stream', async () => {
    const stream = new RecordingResponseStream();
    await handler(apiGatewayEvent('/v1/chat/completions', { model: 'm' }, headers()), stream, localLambdaContext('gw-gateway'));
    const { prelude, body } = stream.decoded();
    expect(prelude.statusCode).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ status: 'failure', error: { code: 'missing_messages' } });
  });
});

describe('the exported control-plane Lambda handler', () => {
  it('authenticates a path it serves before its method is judged, and answers buffered JSON', async () => {
    const controlPlane = (await import('../../functions/control-plane/handler.js')).handler as unknown as BufferedLambda;
    const event = { ...apiGatewayEvent('/v1/configs', {}, {}), httpMethod: 'GET', body: null };
    const result = await controlPlane(event, localLambdaContext('gw-control-plane'));
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body).error.code).toBe('api_key_missing');
  });

  it('unknown paths on AWS (API Gateway sends them here): a 404 naming the path gw serves, before authentication', async () => {
    const controlPlane = (await import('../../functions/control-plane/handler.js')).handler as unknown as BufferedLambda;
    const unknown = await controlPlane({ ...apiGatewayEvent('/v1/anything', {}, {}), httpMethod: 'GET', body: null }, localLambdaContext('gw-control-plane'));
    expect(unknown.statusCode).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('route_not_found');
    const missingV1 = await controlPlane({ ...apiGatewayEvent('/chat/completions', {}, {}), body: '{}' }, localLambdaContext('gw-control-plane'));
    expect(missingV1.statusCode).toBe(404);
    expect(JSON.parse(missingV1.body).error.message).toContain('POST /v1/chat/completions');
  });
});
