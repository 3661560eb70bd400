import { GatewayError } from '../../http/errors.js';
import { isStreamBody, type NeutralResponse, type ResponseBody } from '../../http/types.js';
import { backgroundCapacity } from '../../observability/background.js';
import type { UsageReport } from '../attempt-types.js';
import { admitRequest, type Admission } from '../enforcement/admission.js';
import { applyGuardrails } from '../guardrail-stage.js';
import { rememberReservations } from '../enforcement/settlement.js';
import { settleBeforeAnswering, settleFailedRequest } from '../attempt-settle.js';
import { recordOutcome } from '../inference.js';
import { gatewayHeaders } from '../response-headers.js';
import { type RetryClock, systemClock } from '../routing/retry.js';
import { routeAttempts } from '../attempt-routing.js';
import { withSpan } from '../../observability/spans.js';
import { attemptPassthrough } from './attempt.js';
import type { PassthroughRequest } from './context.js';
import { merged } from '../../merged.js';

/**
 * Policies and budgets, then the route (retries, fallback, load balancing; the body is buffered bytes, so
 * every try can replay it), then the provider's answer with gw's headers. One log record per request, after
 * the answer went out (for streamed audio, after its last byte).
 */
export async function forwardPassthrough(passthrough: PassthroughRequest, clock: RetryClock = systemClock): Promise<NeutralResponse> {
  const { context } = passthrough;
  let admission: Admission | undefined;
  let settled: UsageReport | undefined;
  await backgroundCapacity();
  try {
    // Guardrails as for chat: allowed_request_types and request_params_check judge these requests too (the
    // endpoint's name is its path under /v1). add_prefix skips them, so no guardrail rewrites a media body;
    // should one ever do, the request is refused rather than forwarded unguarded.
    const checkedBody = context.body;
    await applyGuardrails(context);
    if (context.body !== checkedBody) throw new GatewayError(400, 'guardrail_transform_unsupported', `A guardrail rewrote the body of /v1/${passthrough.route.endpoint}, which gw forwards as sent; remove that guardrail from this route`);
    admission = await withSpan(context, 'policy_check', () => admitRequest(context));
    rememberReservations(admission, Date.now(), context.log);
    const { value, leaf } = await routeAttempts(context, clock, (leafPath, leafSettings, retry) => attemptPassthrough(passthrough, leafPath, leafSettings, retry, (report) => (settled = report)));
    const lastUsedOption = context.configured ? leaf.path : undefined;
    const headers: Record<string, string> = merged(
      value.headers,
      gatewayHeaders({ traceId: context.traceId, provider: value.provider, attempts: context.attempts, cacheStatus: 'DISABLED', lastUsedOptionIndex: lastUsedOption }),
      { 'content-type': value.contentType },
    );
    const body = deliverAndRecord(value.body, value.contentType, lastUsedOption);
    // As for chat: a read answer leaves once its usage is charged; streamed audio settles after its last byte.
    await settleBeforeAnswering(context, admission, settled, body);
    return { status: 200, headers, body };
  } catch (thrown) {
    const failed = settleFailedRequest(context, thrown, admission);
    recordOutcome(context, failed.outcome);
    throw failed.error;
  }

  /** A read answer is recorded at once; streamed audio once its last byte went (or the client left). Bodies of media are not logged. */
  function deliverAndRecord(body: ResponseBody, contentType: string, lastUsedOption: string | undefined): ResponseBody {
    const textual = /\bjson\b|^text\//i.test(contentType);
    const outcome = () => ({
      status: 200,
      errorCode: settled?.streamErrorCode,
      usage: settled?.usage,
      cacheStatus: 'DISABLED',
      lastUsedOption,
    });
    if (!isStreamBody(body)) {
      recordOutcome(context, merged(outcome(), { responseBody: textual ? body : undefined }), admission);
      return body;
    }
    const source = body[Symbol.asyncIterator]();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      recordOutcome(context, outcome(), admission);
    };
    // A plain iterator, like the relay under it: `return()` reaches the relay at once (see attempt.ts).
    const iterator: AsyncIterator<Uint8Array> = {
      async next() {
        const step = await source.next();
        if (step.done) record();
        return step;
      },
      async return() {
        await source.return?.();
        record();
        return { done: true, value: undefined };
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }
}
