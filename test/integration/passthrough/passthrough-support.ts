import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMediaMock, type MediaMock } from './media-mock.js';

/** A gw and the media mock for the file's tests, started before them and stopped after (like useGatewayWithUpstream). */
export function useGatewayWithMedia(onStart: (started: { gateway: TestGateway; media: MediaMock }) => void): void {
  let started: { gateway?: TestGateway; media?: MediaMock } = {};
  beforeAll(async () => {
    started.media = await startMediaMock();
    started.gateway = await startTestGateway();
    onStart(started as { gateway: TestGateway; media: MediaMock });
  });
  afterAll(async () => {
    await started.gateway?.close();
    await started.media?.close();
    started = {};
  });
}

/** Bytes 0..255 twice: a "file" any text decoding or re-encoding on the way would visibly change. */
export const BINARY_FILE = Buffer.from([...Array.from({ length: 256 }, (_, i) => i), ...Array.from({ length: 256 }, (_, i) => 255 - i)]);

/** A multipart/form-data body built by hand, so the test knows every byte and the boundary the client sent. */
export function multipartBody(fields: Record<string, string>, file: { field: string; filename: string; type: string; bytes: Buffer }): { body: Buffer; contentType: string } {
  const boundary = `----gwTestBoundary${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The real openai SDK pointed at gw, sending to `host` as `provider` with the provider token `sk-provider-token`. */
export function sdkClient(gateway: TestGateway, host: string, headers: Record<string, string> = {}, apiKey = gateway.apiKey): OpenAI {
  return new OpenAI({
    apiKey: 'sk-provider-token',
    baseURL: `${gateway.url}/v1`,
    maxRetries: 0,
    defaultHeaders: { 'x-gw-api-key': apiKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': host, ...headers },
  });
}

/** The file parts and fields a multipart body carries, as the provider would read them. */
export async function readForm(body: Buffer, contentType: string): Promise<FormData> {
  return new Response(body, { headers: { 'content-type': contentType } }).formData();
}
