import type { Principal } from '../../auth/principal.js';
import type { NeutralRequest } from '../../http/types.js';
import { requestLogger } from '../../observability/logger.js';
import type { Endpoint } from '../../providers/types.js';
import type { StoredHoldings } from '../../store/batch-repository.js';
import { buildRouteTree } from '../config/target-tree.js';
import type { GatewayContext } from '../context.js';
import { admitRequest, Admission, type AdmissionHoldings } from '../enforcement/admission.js';
import { withExactReservations } from '../enforcement/amount-leases.js';
import { maxOutputTokensOf } from '../enforcement/estimate.js';
import { requestIdOf } from '../request-id.js';
import type { BatchTarget } from './caller.js';
import type { BatchInputLine } from './jsonl.js';

/** A batch's endpoint as the log and the estimate name it. */
export function endpointOf(url: string): Endpoint {
  if (url.endsWith('/embeddings')) return 'embeddings';
  if (url.endsWith('/chat/completions')) return 'chat';
  return 'completions';
}

/**
 * Admission for a whole batch, through the same `admitRequest` as any request: its policies, its workspace
 * provider's limits and the budget see one request of the batch's model whose prompt is every line's prompt and
 * whose completion limit is the sum of the lines' limits (each line's `max_tokens`, or its model's default), so
 * what is reserved is what the batch can use at most, priced at the standard rate (an upper bound of the batch
 * price it is settled at).
 */
export async function admitBatch(request: NeutralRequest, principal: Principal, target: BatchTarget, lines: readonly BatchInputLine[], model: string, traceId: string): Promise<Admission | undefined> {
  const endpoint = endpointOf(lines[0].url);
  const body: Record<string, unknown> = { model };
  if (endpoint === 'chat') body.messages = lines.flatMap((line) => (Array.isArray(line.body.messages) ? line.body.messages : []));
  else if (endpoint === 'embeddings') body.input = lines.flatMap((line) => line.body.input ?? []);
  else body.prompt = lines.flatMap((line) => line.body.prompt ?? []);
  if (endpoint !== 'embeddings') body.max_tokens = lines.reduce((sum, line) => sum + maxOutputTokensOf(line.body), 0);
  const context: GatewayContext = {
    request,
    requestId: requestIdOf(request),
    traceId,
    startedAt: performance.now(),
    deadline: Date.now(),
    endpoint,
    principal,
    options: target.options,
    body,
    routeTree: buildRouteTree(undefined, target.leaf),
    workspaceProvider: target.workspaceProvider,
    configured: false,
    attempts: [],
    log: requestLogger(traceId),
  };
  // Exact, not from a lease: the reservation is kept with the batch record for hours and settled by whichever
  // process reads the results; a lease share around it would only show as spent until it idled back.
  return withExactReservations(() => admitRequest(context));
}

/** An admission as the batch record keeps it until the batch settles (plain data: keys, amounts). */
export function holdingsOf(admission: Admission): StoredHoldings {
  const holdings: AdmissionHoldings = {
    workspaceId: admission.workspaceId,
    requestSlots: admission.requestSlots,
    providerSlots: admission.providerSlots,
    tokenCounters: admission.tokenCounters,
    creditCounters: admission.creditCounters,
    chargesWorkspace: admission.chargesWorkspace,
    budgetReserved: admission.budgetReserved,
    requestId: admission.requestId,
  };
  // The store takes no undefined values.
  return JSON.parse(JSON.stringify(holdings)) as StoredHoldings;
}

/** The admission a batch record kept, ready to settle or release once. */
export function admissionOf(holdings: StoredHoldings | undefined): Admission | undefined {
  return holdings === undefined ? undefined : new Admission(holdings as unknown as AdmissionHoldings);
}
