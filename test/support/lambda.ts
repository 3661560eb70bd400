import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** A Lambda response stream that records each write, as the runtime would receive them. */
export class RecordingResponseStream extends Writable {
  readonly writes: Buffer[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.writes.push(Buffer.from(chunk));
    callback();
  }

  /** Splits what was written into the HTTP prelude (JSON before eight NUL bytes) and the body writes. */
  decoded(): { prelude: { statusCode: number; headers: Record<string, string> }; body: string; bodyWrites: string[] } {
    const all = Buffer.concat(this.writes);
    const delimiter = all.indexOf(Buffer.alloc(8));
    const prelude = JSON.parse(all.subarray(0, delimiter).toString('utf8'));
    let offset = 0;
    const bodyWrites: string[] = [];
    for (const write of this.writes) {
      const start = offset;
      offset += write.length;
      if (offset <= delimiter + 8) continue;
      bodyWrites.push(write.subarray(Math.max(0, delimiter + 8 - start)).toString('utf8'));
    }
    return { prelude, body: all.subarray(delimiter + 8).toString('utf8'), bodyWrites };
  }
}

/** An API Gateway REST proxy event as API Gateway sends it to the gateway Lambda. */
export function apiGatewayEvent(path: string, body: unknown, headers: Record<string, string>): APIGatewayProxyEvent {
  return {
    resource: '/v1/chat/completions',
    path,
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', stage: 'prod', identity: { sourceIp: '203.0.113.9' } } as APIGatewayProxyEvent['requestContext'],
  };
}
