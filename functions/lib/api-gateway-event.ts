import { Readable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isStreamBody, type NeutralRequest, type NeutralResponse } from '../../shared/http/types.js';

/**
 * The Lambda edge: API Gateway REST proxy events in, neutral requests to the core; neutral responses out in the
 * shape each integration expects. It owns the AWS types so the core never sees them.
 */
export function toNeutralRequest(event: APIGatewayProxyEvent): NeutralRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  for (const [name, values] of Object.entries(event.multiValueHeaders ?? {})) {
    if (values && values.length > 1) headers[name.toLowerCase()] = values.join(', ');
  }
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (value !== undefined) query[name] = value;
  }
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  return { method: event.httpMethod, path: event.path, headers, query, body, sourceIp: event.requestContext?.identity?.sourceIp };
}

/** For the streaming integration: middy writes the prelude from statusCode/headers and pipes `body`. */
export function toStreamingResult(response: NeutralResponse): { statusCode: number; headers: Record<string, string>; body: Readable | string } {
  const { body } = response;
  let stream: Readable | string;
  if (isStreamBody(body)) stream = Readable.from(body, { objectMode: false });
  else if (body instanceof Uint8Array) stream = Readable.from([Buffer.from(body.buffer, body.byteOffset, body.byteLength)], { objectMode: false });
  else stream = body ?? '';
  return { statusCode: response.status, headers: response.headers, body: stream };
}

/** For the buffered integration. Control-plane bodies are always text. */
export async function toProxyResult(response: NeutralResponse): Promise<APIGatewayProxyResult> {
  const { body } = response;
  let text: string;
  if (body === undefined) text = '';
  else if (typeof body === 'string') text = body;
  else if (body instanceof Uint8Array) text = Buffer.from(body).toString('utf8');
  else {
    const parts: Buffer[] = [];
    for await (const part of body) parts.push(Buffer.from(part));
    text = Buffer.concat(parts).toString('utf8');
  }
  return { statusCode: response.status, headers: response.headers, body: text, isBase64Encoded: false };
}
