import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessKeyIdOf, readBody, type StandInAuthorizer } from '../../../shared/store/recording/stand-ins/wire.js';

/**
 * The AWS JSON 1.1 protocol of the Firehose and Athena stand-ins: POST / with `X-Amz-Target: <Service>.<Operation>`,
 * a JSON body, and errors as `{"__type", "message"}` with the `x-amzn-errortype` header the SDK reads the error
 * name from. The caller is the access key id of its SigV4 signature (each function signs with its own).
 */
export interface JsonCall {
  operation: string;
  input: Record<string, unknown>;
  /** The calling function's access key id. */
  caller: string | undefined;
}

/** An AWS error answer: the SDK throws it as an error named `code`. */
export class AwsServiceError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * How a stand-in authorises an operation it does not implement, as IAM would before the service looks at it: the
 * action `<iamPrefix>:<Operation>` on the resource the call names. Operations it implements authorise themselves,
 * first thing, on the resource they act on (which may need state: an Athena execution's workgroup).
 */
export interface UnimplementedOperationGuard {
  iamPrefix: string;
  authorize: StandInAuthorizer;
  /** The ARN the call acts on, from its input (the stream, the workgroup). */
  resourceOf(input: Record<string, unknown>): string;
}

export function jsonProtocolHandler(
  service: string,
  operations: Record<string, (call: JsonCall) => unknown>,
  guard: UnimplementedOperationGuard,
): (request: IncomingMessage, response: ServerResponse) => void {
  const answer = (response: ServerResponse, status: number, body: unknown, errorType?: string) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'stand-in', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
    response.end(JSON.stringify(body));
  };
  return (request, response) => {
    void (async () => {
      const body = await readBody(request);
      const target = String(request.headers['x-amz-target'] ?? '');
      const [prefix, operation] = target.split('.');
      const handler = prefix === service ? operations[operation] : undefined;
      const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      const caller = accessKeyIdOf(request.headers.authorization);
      if (!handler) {
        // IAM first, as on AWS: an ungranted call is a denial the suite counts (and fails on), never an
        // UnknownOperationException that code swallowing errors would hide. Granted but not implemented: say so.
        const action = `${guard.iamPrefix}:${operation}`;
        const resource = guard.resourceOf(input);
        if (!guard.authorize(caller, action, resource)) throw accessDenied(caller, action, resource);
        throw new AwsServiceError('UnknownOperationException', `${target} is not served by this stand-in`);
      }
      answer(response, 200, await handler({ operation, input, caller }));
    })().catch((error: unknown) => {
      if (error instanceof AwsServiceError) answer(response, error.status, { __type: error.code, message: error.message }, error.code);
      else answer(response, 500, { __type: 'InternalFailure', message: String((error as Error).message ?? error) }, 'InternalFailure');
    });
  };
}

/** IAM's refusal, as the JSON services word it. */
export function accessDenied(who: string | undefined, action: string, resource: string): AwsServiceError {
  return new AwsServiceError('AccessDeniedException', `User: ${who ?? 'anonymous'} is not authorized to perform: ${action} on resource: ${resource}`);
}
