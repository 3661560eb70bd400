import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

/**
 * The AWS-shaped phase's DynamoDB-compatible store (dynalite, in memory) in a process of its own, as DynamoDB is
 * a service of its own: its CPU stays out of gw's process tree and out of the harness. Prints
 * `{"event":"ready","port":…}` once it listens on a free loopback port.
 */
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ event: 'ready', port: (server.address() as AddressInfo).port })}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
