/**
 * Preloaded into a third-party server the bench runs for comparison (Portkey: `node --import
 * ./bench/processes/loopback-only.mjs …`), whose start-up takes a port but no host and would listen on every
 * interface: a `listen(port)` without a host is given 127.0.0.1, so the unauthenticated gateway is reachable from
 * this machine only. A listen that names its host is left as it is. Plain JavaScript, so that it needs no loader.
 */
import { Server } from 'node:net';

const listen = Server.prototype.listen;
Server.prototype.listen = function listenOnLoopback(...args) {
  const [first, second] = args;
  // listen(port, undefined, callback), as a server that passes an unset host through calls it.
  const rest = second === undefined ? args.slice(2) : args.slice(1);
  if (typeof first === 'number' && typeof second !== 'string') return listen.call(this, first, '127.0.0.1', ...rest);
  if (first !== null && typeof first === 'object' && !('fd' in first) && !('path' in first) && first.host === undefined) {
    return listen.call(this, { ...first, host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
