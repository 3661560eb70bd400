import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Test-only plumbing of the AWS stand-ins (s3-stand-in.ts, secrets-manager-stand-in.ts): reading a request, finding
 * who signed it, serving a handler on loopback.
 */

/** Decides whether the caller (by the access key id of its SigV4 signature) may perform `action` on `resource` (an ARN). */
export type StandInAuthorizer = (accessKeyId: string | undefined, action: string, resource: string) => boolean;

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The access key id of a SigV4 `Authorization` header (or of a presigned URL's `X-Amz-Credential`). */
export function accessKeyIdOf(authorization: string | undefined, query?: URLSearchParams): string | undefined {
  const credential = /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1] ?? query?.get('X-Amz-Credential')?.split('/')[0];
  return credential || undefined;
}

export interface LoopbackServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 at a free port. `unref`: the server never keeps the process alive. */
export async function serveOnLoopback(handler: RequestListener, options: { unref?: boolean } = {}): Promise<LoopbackServer> {
  const server = createServer({ keepAliveTimeout: 60_000 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  if (options.unref) server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
