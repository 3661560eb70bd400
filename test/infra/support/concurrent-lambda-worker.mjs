// The Node.js runtime of Lambda Managed Instances, as far as a test needs it: this file runs in a worker thread
// (the runtime's unit of parallelism), imports one function's BUILT bundle once (the worker's init), then runs every
// invocation the parent posts AT ONCE on this one thread, async-concurrently, with no queue: each concurrent request
// shares the handler object and the module state, which is what the managed-instances runtime does up to
// PerExecutionEnvironmentMaxConcurrency. Response-stream writes go back to the parent as they happen.
// Plain JavaScript on purpose: nothing of the repository's TypeScript toolchain is loaded beside the bundle.
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import process from 'node:process';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const awslambda = (globalThis.awslambda ??= {});
awslambda.streamifyResponse = (handler) => handler;
awslambda.HttpResponseStream = {
  from(stream, prelude) {
    stream.write(JSON.stringify(prelude));
    stream.write(new Uint8Array(8));
    return stream;
  },
};

const { bundleDir, functionName } = workerData;
const { handler } = await import(pathToFileURL(join(bundleDir, 'index.mjs')).href);

let inFlight = 0;
let maxInFlight = 0;

parentPort.on('message', (message) => {
  void invoke(message);
});

async function invoke({ id, event }) {
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      parentPort.postMessage({ id, chunk: Buffer.from(chunk).toString('base64') });
      callback();
    },
  });
  const context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST.PUBLISHED',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${functionName}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'concurrent-worker',
    getRemainingTimeInMillis: () => 900_000,
  };
  let error;
  try {
    await handler(event, stream, context);
    if (!stream.writableEnded) stream.end();
  } catch (caught) {
    error = String(caught?.stack ?? caught);
  }
  inFlight--;
  parentPort.postMessage({ id, done: true, error, maxInFlight });
}

parentPort.postMessage({ ready: true });
