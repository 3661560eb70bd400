import { randomUUID } from 'node:crypto';
import type { NeutralRequest } from '../http/types.js';

/**
 * The id of a gateway request's log record, decided when the request arrives, so every response (errors included)
 * can carry it in `x-gw-request-id` and `GET /v1/logs/{id}` finds the record it names. It rides on the neutral
 * request's headers (set by gw, never taken from the client: the gateway core overwrites it), so a request re-routed
 * inside gw (prompt completions into chat) keeps it.
 */
export const REQUEST_ID_HEADER = 'x-gw-request-id';

export function assignRequestId(request: NeutralRequest): string {
  const id = randomUUID();
  request.headers[REQUEST_ID_HEADER] = id;
  return id;
}

export function requestIdOf(request: NeutralRequest): string {
  return request.headers[REQUEST_ID_HEADER] ?? assignRequestId(request);
}
