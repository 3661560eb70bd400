import type { IncomingMessage, ServerResponse } from 'node:http';
import { unimplementedS3Operation } from './s3-operations.js';
import { accessKeyIdOf, readBody, type StandInAuthorizer } from './wire.js';

/**
 * Test-only: enough of S3's REST API (path-style) for gw's blob store, on a node:http server, so the real S3 client
 * (and the operation recorder on it) is exercised over the wire. It answers as S3 does where gw depends on it:
 * - a missing key is 404 `NoSuchKey` (GET) or a bare 404 (HEAD) only when the caller may `s3:ListBucket` the
 *   bucket; without that permission S3 answers 403 `AccessDenied`, so as not to reveal whether the key exists;
 * - an action the caller's policy does not allow is 403 `AccessDenied`;
 * - a conditional PUT (`If-None-Match: *`) of a key that exists is 412 `PreconditionFailed`;
 * - an operation it does not implement is authorised first, as IAM would (s3-operations.ts names its action), and
 *   then 501 `NotImplemented`: an ungranted one is a recorded denial, whether or not the code swallows the error.
 */
export interface ObjectBacking {
  get(key: string): Promise<Buffer | undefined>;
  put(key: string, bytes: Uint8Array): Promise<void>;
  delete(key: string): Promise<void>;
  /** Keys under `prefix`, for ListObjectsV2; absent: ListObjectsV2 is 501. */
  list?(prefix: string): Promise<string[]>;
  /** When a key was last written (ListObjectsV2's `LastModified`, Athena's `$file_modified_time`), where known. */
  modifiedAt?(key: string): Date | undefined;
}

/** An in-memory backing (the AWS-shaped tests); the recording mode backs it with the local blob folder. */
export function memoryObjects(): ObjectBacking & { objects: Map<string, Buffer>; modified: Map<string, Date> } {
  const objects = new Map<string, Buffer>();
  // S3 keeps LastModified to the second; a test may set one back to stand for an object written earlier.
  const modified = new Map<string, Date>();
  return {
    objects,
    modified,
    get: async (key) => objects.get(key),
    put: async (key, bytes) => {
      objects.set(key, Buffer.from(bytes));
      modified.set(key, new Date(Math.floor(Date.now() / 1000) * 1000));
    },
    delete: async (key) => {
      objects.delete(key);
      modified.delete(key);
    },
    list: async (prefix) => [...objects.keys()].filter((key) => key.startsWith(prefix)).sort(),
    modifiedAt: (key) => (objects.has(key) ? modified.get(key) : undefined),
  };
}

export interface S3StandInOptions {
  /** bucket name → its objects; any other bucket is 404 NoSuchBucket. */
  buckets: Record<string, ObjectBacking>;
  /** IAM check of the caller (by its access key id); everything is allowed when absent. */
  authorize?: StandInAuthorizer;
}

const xml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function sendError(response: ServerResponse, status: number, code: string, message: string, head = false): void {
  response.writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': 'stand-in' });
  response.end(head ? undefined : xml(`<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`));
}

export function s3StandIn(options: S3StandInOptions): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    handle(options, request, response).catch((error: unknown) => sendError(response, 500, 'InternalError', String((error as Error).message ?? error)));
  };
}

async function handle(options: S3StandInOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  const [bucketName, ...keyParts] = url.pathname.slice(1).split('/');
  const bucket = decodeURIComponent(bucketName ?? '');
  const key = keyParts.map(decodeURIComponent).join('/');
  const method = request.method ?? 'GET';
  const head = method === 'HEAD';
  const body = await readBody(request);
  const principal = accessKeyIdOf(request.headers.authorization, url.searchParams);
  const unimplemented = unimplementedS3Operation(method, bucket, key, url.searchParams, request.headers, body);
  if (unimplemented && (bucket === '' || options.buckets[bucket])) {
    const denied = unimplemented.permissions.some(({ action, resource }) => options.authorize && !options.authorize(principal, action, resource));
    if (denied) return sendError(response, 403, 'AccessDenied', 'Access Denied', head);
    return sendError(response, 501, 'NotImplemented', `${unimplemented.name} is not implemented by this stand-in`, head);
  }
  const backing = options.buckets[bucket];
  if (!backing) return sendError(response, 404, 'NoSuchBucket', 'The specified bucket does not exist', head);
  const allowed = (action: string, onObject: boolean) =>
    options.authorize ? options.authorize(principal, `s3:${action}`, onObject ? `arn:aws:s3:::${bucket}/${key}` : `arn:aws:s3:::${bucket}`) : true;

  if (key === '') {
    if (method === 'GET' && url.searchParams.get('list-type') === '2') {
      if (!allowed('ListBucket', false)) return sendError(response, 403, 'AccessDenied', 'Access Denied');
      if (!backing.list) return sendError(response, 501, 'NotImplemented', 'ListObjectsV2 is not implemented by this stand-in');
      const prefix = url.searchParams.get('prefix') ?? '';
      const keys = await backing.list(prefix);
      const lastModified = (name: string) => {
        const at = backing.modifiedAt?.(name);
        return at ? `<LastModified>${at.toISOString()}</LastModified>` : '';
      };
      const contents = keys.map((name) => `<Contents><Key>${escapeXml(name)}</Key>${lastModified(name)}<StorageClass>STANDARD</StorageClass></Contents>`).join('');
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(xml(`<ListBucketResult><Name>${escapeXml(bucket)}</Name><Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`));
      return;
    }
    return sendError(response, 501, 'NotImplemented', `${method} on a bucket is not implemented by this stand-in`);
  }

  if (method === 'PUT' && !request.headers['x-amz-copy-source']) {
    if (!allowed('PutObject', true)) return sendError(response, 403, 'AccessDenied', 'Access Denied');
    // A conditional write (`If-None-Match: *`) creates the object only if there is none.
    if (request.headers['if-none-match'] === '*' && (await backing.get(key)) !== undefined) {
      return sendError(response, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
    }
    await backing.put(key, body);
    response.writeHead(200, { etag: '"stand-in"' });
    response.end();
    return;
  }
  if (method === 'GET' || head) {
    if (!allowed('GetObject', true)) return sendError(response, 403, 'AccessDenied', 'Access Denied', head);
    const bytes = await backing.get(key);
    if (!bytes) {
      // S3 says whether a key exists only to a caller who may list the bucket.
      if (!allowed('ListBucket', false)) return sendError(response, 403, 'AccessDenied', 'Access Denied', head);
      return sendError(response, 404, head ? 'NotFound' : 'NoSuchKey', 'The specified key does not exist.', head);
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length), etag: '"stand-in"' });
    response.end(head ? undefined : bytes);
    return;
  }
  if (method === 'DELETE') {
    if (!allowed('DeleteObject', true)) return sendError(response, 403, 'AccessDenied', 'Access Denied');
    await backing.delete(key);
    response.writeHead(204);
    response.end();
    return;
  }
  sendError(response, 501, 'NotImplemented', `${method} on an object is not implemented by this stand-in`);
}
