import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in AWS endpoint on loopback for the real SDK clients: it speaks the JSON protocol (awsJson1_1: POST /,
 * `X-Amz-Target: <Service>.<Operation>`, `application/x-amz-json-1.1`) that Firehose and Athena use, and S3's
 * ListObjectsV2 (REST + XML, path-style). Tests script the answer of each operation and read every call back.
 */
export interface AwsCall {
  /** `PutRecordBatch`, `StartQueryExecution`, … or `ListObjectsV2`. */
  operation: string;
  /** The X-Amz-Target header as sent (JSON protocol only). */
  target?: string;
  input: Record<string, unknown>;
}

/** An answer: a JSON body (200), or an AWS error (`__type` + message, status 400 unless given). */
export type AwsAnswer = { json: unknown } | { error: string; message?: string; status?: number };

export type AwsOperationHandler = (input: Record<string, unknown>, call: AwsCall) => AwsAnswer | Promise<AwsAnswer>;

export interface AwsJsonService {
  endpoint: string;
  calls: AwsCall[];
  callsOf(operation: string): AwsCall[];
  on(operation: string, handler: AwsOperationHandler): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** The XML body of a ListObjectsV2 answer given as `{ keys, nextToken? }`. */
function listObjectsXml(bucket: string, prefix: string, answer: { keys: string[]; nextToken?: string }): string {
  const contents = answer.keys.map((key) => `<Contents><Key>${xmlEscape(key)}</Key><Size>1</Size></Contents>`).join('');
  const truncated = answer.nextToken ? `<IsTruncated>true</IsTruncated><NextContinuationToken>${xmlEscape(answer.nextToken)}</NextContinuationToken>` : '<IsTruncated>false</IsTruncated>';
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${xmlEscape(bucket)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${answer.keys.length}</KeyCount>${truncated}${contents}</ListBucketResult>`;
}

export async function startAwsJsonService(): Promise<AwsJsonService> {
  const handlers = new Map<string, AwsOperationHandler>();
  const calls: AwsCall[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const target = request.headers['x-amz-target'];
      let call: AwsCall;
      if (typeof target === 'string') {
        call = { operation: target.slice(target.indexOf('.') + 1), target, input: JSON.parse(body || '{}') as Record<string, unknown> };
      } else {
        // S3 path-style: GET /<bucket>?list-type=2&prefix=…
        const url = new URL(request.url ?? '/', 'http://stub');
        const input = { Bucket: decodeURIComponent(url.pathname.replace(/^\/|\/$/g, '')), ...Object.fromEntries(url.searchParams) };
        call = { operation: url.searchParams.get('list-type') === '2' ? 'ListObjectsV2' : `${request.method} ${url.pathname}`, input };
      }
      calls.push(call);
      const handler = handlers.get(call.operation);
      const answer: AwsAnswer = handler ? await handler(call.input, call) : { error: 'UnknownOperationException', message: `no stub for ${call.operation}` };
      if ('error' in answer) {
        response.writeHead(answer.status ?? 400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': answer.error });
        response.end(JSON.stringify({ __type: answer.error, message: answer.message ?? answer.error }));
        return;
      }
      if (call.operation === 'ListObjectsV2') {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end(listObjectsXml(String(call.input.Bucket), String(call.input.prefix ?? ''), answer.json as { keys: string[]; nextToken?: string }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(answer.json));
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify({ __type: 'InternalFailure', message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    callsOf: (operation) => calls.filter((call) => call.operation === operation),
    on: (operation, handler) => handlers.set(operation, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
