import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { errorResponse, GatewayError } from '../../shared/http/errors.js';
import type { NeutralRequest, NeutralResponse } from '../../shared/http/types.js';
import { drainAllBackgroundWork } from '../../shared/observability/background.js';
import { logger } from '../../shared/observability/logger.js';
import { toNeutralRequest } from './api-gateway-event.js';
import { writeBody } from './write-body.js';

type Core = (request: NeutralRequest) => Promise<NeutralResponse>;
export type StreamingLambdaHandler = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<void>;

/** The two parts of the Lambda Node.js runtime a streaming handler uses (infra/local/lambda-shim.ts emulates them). */
interface AwsLambdaRuntime {
  streamifyResponse(handler: StreamingLambdaHandler): StreamingLambdaHandler;
  HttpResponseStream: { from(stream: Writable, prelude: { statusCode: number; headers: Record<string, string> }): Writable };
}

export interface StreamingHandlerOptions {
  /**
   * Adds the Lambda context (request id, function, cold start) to the Powertools logger for each invocation and
   * redraws its debug sampling. Measured at ~1 µs a call (bench/profile/edge-overhead.ts), so on by default.
   */
  loggerContext?: boolean;
  /**
   * Waits for the background work (request logs, charges) after the response has ended. Needed in a Lambda
   * sandbox, which freezes when the invocation ends; default: when running in classic Lambda (not `concurrent`).
   */
  drainAfterResponse?: boolean;
  /**
   * Many invocations run at once in this worker (Lambda Managed Instances; the stack sets
   * GW_CONCURRENT_INVOCATIONS=ON on a gateway it puts on a capacity provider). Then nothing per invocation may live in
   * module scope, so the shared Powertools logger gets no per-invocation context (it would carry another request's
   * id), and the after-path is not drained at each invocation's end: the environment never freezes between
   * invocations, the write-behind buffers flush on their own, and a drain would make each invocation wait for every
   * other one's logs and charges (under steady load, for ever).
   */
  concurrent?: boolean;
}

/** What the stack sets on a function that serves concurrent invocations (infra/cdk/gw-stack.ts). */
export function servesConcurrentInvocations(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GW_CONCURRENT_INVOCATIONS?.toUpperCase() === 'ON';
}

/**
 * A lean response-streaming Lambda handler around a neutral core, without middy: issue #23 measured middy's
 * streaming wrapper (a `stream.pipeline` per response) as the largest part of the edge's cost
 * (bench/profile/edge-overhead.ts). Order per invocation: core → prelude → body with backpressure → end the
 * stream, and only then drain the background work, so the client never waits for a log write.
 */
export function createStreamingHandler(core: Core, options: StreamingHandlerOptions = {}): StreamingLambdaHandler {
  const runtime = (globalThis as unknown as { awslambda: AwsLambdaRuntime }).awslambda;
  const concurrent = options.concurrent ?? servesConcurrentInvocations();
  const loggerContext = options.loggerContext ?? !concurrent;
  const drainAfterResponse = options.drainAfterResponse ?? (!concurrent && process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined);

  return runtime.streamifyResponse(async (event, responseStream, context) => {
    if (loggerContext) {
      // What Powertools' injectLambdaContext did, minus middy: debug sampling per invocation, the context keys.
      logger.refreshSampleRateCalculation();
      logger.addContext(context);
    }
    const request = toNeutralRequest(event);
    // The core cancels its upstream call when this aborts: the response stream closed before it was finished.
    const controller = new AbortController();
    request.signal = controller.signal;
    const abortOnClose = () => {
      if (!responseStream.writableFinished) controller.abort(new Error('the response stream closed before the end'));
    };
    responseStream.once('close', abortOnClose);
    try {
      const response = await answer(core, request);
      const body = runtime.HttpResponseStream.from(responseStream, { statusCode: response.status, headers: response.headers });
      await writeBody(body, response.body);
    } finally {
      responseStream.off('close', abortOnClose);
    }
    if (drainAfterResponse) await drainAllBackgroundWork();
  });
}

/** The core answers every error itself; this is the net under it, in the same error shape and without a stack. */
async function answer(core: Core, request: NeutralRequest): Promise<NeutralResponse> {
  try {
    return await core(request);
  } catch (error) {
    logger.error('the gateway core threw instead of answering', { error: error as Error });
    return errorResponse(new GatewayError(500, 'internal_error', 'gw failed to serve the request'));
  }
}
