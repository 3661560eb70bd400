import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

/**
 * The floor: the smallest useful Node proxy (node:http in, undici with a keep-alive pool out, body streamed
 * back as it arrives), run as its own process beside gw. What it adds over the direct path is what any extra
 * Node hop costs on this machine; what gw adds beyond it is gw's own work (auth, options, routing, logging).
 * `BENCH_UPSTREAM` is the mock's base URL. Prints `{"event":"ready","port":…}` once it listens.
 */
const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error('BENCH_UPSTREAM is not set');
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256 });

const server = createServer({ keepAliveTimeout: 60_000 }, (incoming, outgoing) => {
  void (async () => {
    const parts: Buffer[] = [];
    for await (const part of incoming as AsyncIterable<Buffer>) parts.push(part);
    const answer = await request(`${upstream}${incoming.url ?? '/'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: incoming.headers.authorization ?? '' },
      body: Buffer.concat(parts),
      dispatcher,
    });
    outgoing.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') });
    for await (const chunk of answer.body) outgoing.write(chunk);
    outgoing.end();
  })().catch(() => outgoing.destroy());
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ event: 'ready', port: (server.address() as AddressInfo).port })}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
