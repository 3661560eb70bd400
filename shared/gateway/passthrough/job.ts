import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../../http/errors.js';
import type { PassthroughAnswer, PassthroughInput, PassthroughSupport } from '../../providers/passthrough-types.js';
import type { ProviderAdapter } from '../../providers/types.js';
import { MAX_RESPONSE_BYTES, sendAccepted } from '../attempt-upstream.js';
import type { GatewayContext } from '../context.js';
import { clientClosed, readUpstreamBody } from '../upstream-client.js';
import { merged } from '../../merged.js';

/**
 * The calls after the first of a provider whose API is a job (AssemblyAI: upload, create, poll), each built by the
 * provider from the answers so far and sent like the first (gw's address checks, the provider's error mapping).
 * The job is bounded by the request's deadline: a poll that would start after it is a 504 naming what still runs,
 * not marked as the provider's failure, so no retry starts (and bills) a second job.
 */
export async function followJob(context: GatewayContext, adapter: ProviderAdapter, support: PassthroughSupport, input: PassthroughInput, first: PassthroughAnswer, timeoutMs: number): Promise<PassthroughAnswer> {
  const answers = [first];
  for (;;) {
    const next = support.followUp!(answers, input);
    if (!next) return merged(answers[answers.length - 1], { previous: answers.slice(0, -1) });
    const waitMs = next.waitMs ?? 0;
    if (Date.now() + waitMs >= context.deadline) {
      throw new GatewayError(504, 'upstream_job_pending', `The request's timeout passed while ${next.pending ?? 'the provider'} was still running; raise x-gw-request-timeout for longer audio`, { type: 'upstream_error' });
    }
    if (waitMs > 0) await sleep(waitMs, undefined, { signal: context.request.signal }).catch(() => Promise.reject(clientClosed()));
    const upstream = await sendAccepted(context, adapter, next.call, Math.max(1, Math.min(timeoutMs, context.deadline - Date.now())));
    const body = await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
    const contentType = [upstream.headers['content-type']].flat()[0] ?? 'application/octet-stream';
    answers.push({ endpoint: first.endpoint, body, contentType, fields: first.fields });
  }
}
