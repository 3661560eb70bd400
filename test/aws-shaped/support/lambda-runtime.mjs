// A Lambda-like runtime for one function's BUILT bundle, in a process of its own (as a Lambda sandbox is): it is
// started with the function's environment from the synthesised template, imports `<bundle dir>/index.mjs` once
// (the cold start), then runs invocations sent by the parent over IPC, one at a time, as the Node.js runtime does:
// - a handler marked by `awslambda.streamifyResponse` gets a response stream; every write (the HTTP prelude, its
//   eight NUL bytes, then the body) is sent back as it happens, so the parent sees streaming as API Gateway would;
// - any other handler's resolved value is sent back as the invocation's result.
// Plain JavaScript on purpose: nothing of the repository's TypeScript toolchain is loaded beside the bundle.
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';

const STREAMING = Symbol.for('gw.awsShaped.streaming');
const awslambda = (globalThis.awslambda ??= {});
awslambda.streamifyResponse = (handler) => Object.assign(handler, { [STREAMING]: true });
awslambda.HttpResponseStream = {
  from(stream, prelude) {
    stream.write(JSON.stringify(prelude));
    stream.write(new Uint8Array(8));
    return stream;
  },
};

const bundleDir = process.argv[2];
const send = (message) => new Promise((resolve) => process.send(message, resolve));
const importStarted = performance.now();
const importCpu = process.cpuUsage();
const { handler } = await import(pathToFileURL(join(bundleDir, 'index.mjs')).href);
// The cold start's import, for measurements (bench/memory-choice.ts).
const coldStart = { importMs: performance.now() - importStarted, importCpuMs: cpuMs(process.cpuUsage(importCpu)) };

function cpuMs(usage) {
  return (usage.user + usage.system) / 1000;
}

function context(functionName, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${functionName}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'aws-shaped',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

let queue = Promise.resolve();
process.on('message', (message) => {
  queue = queue.then(() => invoke(message));
});

async function invoke({ id, event }) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const report = () => ({ durationMs: performance.now() - started, cpuMs: cpuMs(process.cpuUsage(cpu)), maxRssKiB: process.resourceUsage().maxRSS });
  const ctx = context(process.env.AWS_LAMBDA_FUNCTION_NAME, Number(process.env.GW_HARNESS_TIMEOUT_MS ?? 30_000));
  try {
    if (handler[STREAMING]) {
      let pending = Promise.resolve();
      const stream = new Writable({
        write(chunk, _encoding, callback) {
          pending = send({ id, chunk: Buffer.from(chunk).toString('base64') });
          pending.then(() => callback(), callback);
        },
      });
      await handler(event, stream, ctx);
      // The invocation is over when the stream has ended and every write has gone out (writes queue behind the one
      // in flight, so the handler may return before they are sent).
      if (!stream.writableEnded) stream.end();
      if (!stream.writableFinished) await new Promise((resolve, reject) => stream.once('finish', resolve).once('error', reject));
      await pending;
      await send({ id, done: true, ...report() });
    } else {
      const result = await handler(event, ctx);
      await send({ id, done: true, result: result ?? null, ...report() });
    }
  } catch (error) {
    await send({ id, done: true, error: String(error?.stack ?? error) });
  }
}
await send({ ready: true, ...coldStart });
