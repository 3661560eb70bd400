import { badRequest } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';

export interface PageRequest {
  limit: number;
  /** DynamoDB's ExclusiveStartKey, decoded from the opaque cursor. */
  startKey?: Record<string, unknown>;
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** Reads `limit` (1-100, default 20) and `cursor` (opaque, from a previous page) from the query string. */
export function readPageRequest(request: NeutralRequest): PageRequest {
  const { limit: rawLimit, cursor } = request.query;
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > MAX_LIMIT) {
      throw badRequest('invalid_limit', `limit must be an integer between 1 and ${MAX_LIMIT}`, 'limit');
    }
    limit = Number(rawLimit);
  }
  if (cursor === undefined || cursor === '') return { limit };
  try {
    const startKey = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof startKey !== 'object' || startKey === null || Array.isArray(startKey)) throw new Error('not an object');
    // A page key gw wrote is flat (strings and numbers); anything else is made up, and would reach the store.
    if (Object.values(startKey).some((value) => typeof value !== 'string' && typeof value !== 'number')) throw new Error('not a page key');
    return { limit, startKey: startKey as Record<string, unknown> };
  } catch {
    throw badRequest('invalid_cursor', 'cursor is not a value returned as next_cursor by a previous page', 'cursor');
  }
}

export function toPage<T>(data: T[], lastEvaluatedKey: Record<string, unknown> | undefined): Page<T> {
  return {
    object: 'list',
    data,
    has_more: lastEvaluatedKey !== undefined,
    next_cursor: lastEvaluatedKey ? Buffer.from(JSON.stringify(lastEvaluatedKey)).toString('base64url') : null,
  };
}
