import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** A started local gw process (`npm start` or its entry point), as the tests watch it. */
export interface WatchedGw {
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Resolves with the URL once gw says it listens and has printed its first-run instructions; rejects on exit. */
  listening: Promise<string>;
  /** Everything written to stdout and stderr so far. */
  output: () => string;
}

/** Collects a spawned gw's output and waits (up to 60 s) for its "listening on" line. */
export function watchGwStartup(child: ChildProcess & { stdout: Readable; stderr: Readable }): WatchedGw {
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gw did not start:\n${output}`)), 60_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      // The curl example follows the listening line: once it is there, the startup output is complete.
      if (match && output.includes('curl ')) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`gw exited with ${code}:\n${output}`));
    });
  });
  // A test that never awaits `listening` (it expects an early exit) must not see an unhandled rejection.
  listening.catch(() => undefined);
  return { exited, listening, output: () => output };
}
