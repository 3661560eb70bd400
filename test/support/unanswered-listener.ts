import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';

/**
 * A TCP address whose connect never completes, on loopback, deterministically: a child process listens with a
 * backlog of 1 (0 would mean Node's default, 511) and then blocks its event loop, so it never accepts. Two connections fill the kernel's accept
 * queue (it holds backlog + 1); after that Linux drops every further SYN, and a client's connect hangs until its own timeout.
 * (Routing to an unused address instead depends on the network: some answer "unreachable" at once.)
 */
export interface UnansweredListener {
  port: number;
  close(): Promise<void>;
}

const CHILD = `
const net = require('node:net');
const fs = require('node:fs');
const server = net.createServer();
server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  fs.writeSync(1, String(server.address().port) + '\\n');
  // Never returns to the event loop, so libuv never accepts; costs no CPU.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
`;

export async function startUnansweredListener(): Promise<UnansweredListener> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the unanswered listener exited early (${code})`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  // Fill the accept queue (backlog + 1 = 2 connections): these connects complete.
  const fillers: Socket[] = [];
  for (let i = 0; i < 2; i++) {
    fillers.push(
      await new Promise<Socket>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      }),
    );
  }
  return {
    port,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** True when a connect to `port` does not complete within `withinMs` (the queue is full, as intended). */
export async function connectHangs(port: number, withinMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(true);
    }, withinMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
