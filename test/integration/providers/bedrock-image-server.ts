import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A 1×1 PNG: real image bytes, small enough to compare whole. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
/** The start of a JPEG (SOI + APP0 marker): enough for signature sniffing. */
export const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);

export interface ImageServer {
  url: string;
  port: number;
  /** Paths requested, in order. */
  requests: string[];
  /** Most requests that were in flight at once. */
  maxInFlight(): number;
  close(): Promise<void>;
}

/**
 * A real HTTP server of image links for the fetch tests. `size` bytes are the cap the tests set
 * (GW_IMAGE_FETCH_MAX_BYTES); the routes cover each answer the fetcher must handle.
 */
export async function startImageServer(size: number): Promise<ImageServer> {
  const requests: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://images').pathname;
    requests.push(path);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    response.once('close', () => inFlight--);
    const send = (status: number, headers: Record<string, string>, body?: Buffer | string) => {
      response.writeHead(status, headers);
      response.end(body);
    };
    if (path === '/cat.png') return send(200, { 'content-type': 'image/png' }, PNG);
    if (path.startsWith('/slow-png/')) {
      // Held a moment so parallel fetches overlap (the concurrency test counts them).
      return void setTimeout(() => send(200, { 'content-type': 'image/png' }, PNG), 40);
    }
    if (path === '/photo') return send(200, { 'content-type': 'binary/octet-stream' }, JPEG);
    if (path === '/page.html') return send(200, { 'content-type': 'text/html; charset=utf-8' }, '<html>not an image</html>');
    if (path === '/image.tiff') return send(200, { 'content-type': 'image/tiff' }, Buffer.alloc(16));
    if (path === '/missing.png') return send(404, { 'content-type': 'text/plain' }, 'no such image');
    if (path === '/big-announced.png') return send(200, { 'content-type': 'image/png', 'content-length': String(size + 1) }, Buffer.alloc(size + 1));
    if (path === '/big-streamed.png') {
      // No content-length: the cap must hold while the bytes arrive.
      response.writeHead(200, { 'content-type': 'image/png', 'transfer-encoding': 'chunked' });
      const chunk = Buffer.alloc(Math.ceil(size / 4));
      for (let index = 0; index < 6; index++) response.write(chunk);
      return void response.end();
    }
    if (path === '/hang.png') return; // never answers
    if (path === '/redirect-ok') return send(302, { location: '/cat.png' });
    if (path === '/redirect-metadata') return send(302, { location: 'http://169.254.169.254/latest/meta-data/iam' });
    if (path === '/redirect-private') return send(301, { location: 'http://10.1.2.3/cat.png' });
    if (path === '/redirect-loop') return send(307, { location: '/redirect-loop' });
    send(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
