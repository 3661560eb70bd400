import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../../infra/local/api-gateway-event.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { apiGatewayEvent, RecordingResponseStream } from '../../support/lambda.js';
import { SPEECH_CHUNKS, startMediaMock, type MediaMock } from './media-mock.js';
import { BINARY_FILE, multipartBody } from './passthrough-support.js';

type StreamingLambda = (event: unknown, stream: RecordingResponseStream, context: unknown) => Promise<void>;

let gateway: TestGateway;
let media: MediaMock;
let handler: StreamingLambda;

beforeAll(async () => {
  media = await startMediaMock();
  // Starting the local runtime installs the awslambda globals and the store the handler needs.
  gateway = await startTestGateway();
  handler = (await import('../../../functions/gateway/handler.js')).handler as unknown as StreamingLambda;
});
afterAll(async () => {
  await gateway?.close();
  await media?.close();
});

const headers = () => ({ 'X-GW-API-Key': gateway.apiKey, 'X-GW-Provider': 'openai', 'X-GW-Custom-Host': media.url, Authorization: 'Bearer sk-test' });

/** The body bytes behind the streaming prelude (JSON, then eight NUL bytes). */
function bodyBytes(stream: RecordingResponseStream): Buffer {
  const all = Buffer.concat(stream.writes);
  return all.subarray(all.indexOf(Buffer.alloc(8)) + 8);
}

describe('pass-through through the exported gateway Lambda handler', () => {
  it('a base64-encoded multipart event (as API Gateway delivers binary bodies) reaches the provider byte for byte', async () => {
    const form = multipartBody({ model: 'whisper-1' }, { field: 'file', filename: 'a.wav', type: 'audio/wav', bytes: BINARY_FILE });
    const event = {
      ...apiGatewayEvent('/v1/audio/transcriptions', {}, { ...headers(), 'Content-Type': form.contentType }),
      resource: '/v1/audio/transcriptions',
      body: form.body.toString('base64'),
      isBase64Encoded: true,
    };
    const stream = new RecordingResponseStream();
    await handler(event, stream, localLambdaContext('gw-gateway'));
    const { prelude, body } = stream.decoded();
    expect(prelude.statusCode).toBe(200);
    expect(JSON.parse(body)).toEqual({ text: 'hello world' });
    const seen = media.requests.at(-1)!;
    expect(seen.headers['content-type']).toBe(form.contentType);
    expect(seen.body.equals(form.body)).toBe(true);
  });

  it('speech audio comes back as the exact bytes, with the provider’s content-type in the prelude', async () => {
    const stream = new RecordingResponseStream();
    const event = { ...apiGatewayEvent('/v1/audio/speech', { model: 'tts-1', voice: 'alloy', input: 'hi' }, headers()), resource: '/v1/audio/speech' };
    await handler(event, stream, localLambdaContext('gw-gateway'));
    const { prelude } = stream.decoded();
    expect(prelude.statusCode).toBe(200);
    expect(prelude.headers['content-type']).toBe('audio/mpeg');
    expect(bodyBytes(stream).equals(Buffer.concat(SPEECH_CHUNKS))).toBe(true);
  });
});
