/** The time field of OpenAI's batch object each ended status sets. */
const ENDED_AT: Readonly<Record<string, string>> = { completed: 'completed_at', failed: 'failed_at', cancelled: 'cancelled_at', expired: 'expired_at' };

/** An RFC 3339 time of a cloud's job → Unix seconds, as OpenAI's batch object has them. */
export function seconds(value: unknown): number | undefined {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? Math.floor(Date.parse(value) / 1000) : undefined;
}

/** What a translated provider's job says, in OpenAI's terms. */
export interface JobFacts {
  /** The provider's handle of the job (an ARN, a resource name): the batch object's `id`. */
  id: string;
  /** OpenAI's status, mapped from the provider's. */
  status: string;
  createdAt?: string;
  startedAt?: string;
  endedAt?: string;
  updatedAt?: string;
  /** The job's own failure, shown in `errors` when it failed. */
  failure?: { code: string; message: unknown };
  requestCounts?: { total: number; completed: number; failed: number };
  /** What reading the results needs later (never shown: views.ts passes on OpenAI's fields only). */
  internal: Record<string, unknown>;
}

/**
 * A cloud batch job (Bedrock's, Vertex AI's) as OpenAI's batch object: the end time under the field of its ended
 * status, `cancelling_at` while it stops, the job's failure in `errors`. Plain JSON (no undefined values: the store
 * takes none).
 */
export function jobView(facts: JobFacts): Record<string, unknown> {
  const view: Record<string, unknown> = Object.assign({ id: facts.id, object: 'batch', status: facts.status, created_at: seconds(facts.createdAt), in_progress_at: seconds(facts.startedAt) ?? null }, facts.internal);
  const endedAt = ENDED_AT[facts.status];
  if (endedAt) view[endedAt] = seconds(facts.endedAt) ?? seconds(facts.updatedAt) ?? null;
  if (facts.status === 'cancelling') view.cancelling_at = seconds(facts.updatedAt) ?? null;
  if (facts.status === 'failed' && typeof facts.failure?.message === 'string') view.errors = { object: 'list', data: [{ code: facts.failure.code, message: facts.failure.message, param: null, line: null }] };
  if (facts.requestCounts) view.request_counts = facts.requestCounts;
  return JSON.parse(JSON.stringify(view)) as Record<string, unknown>;
}
