import type { Principal } from '../../auth/principal.js';
import { badRequest } from '../../http/errors.js';
import type { LogFilter, StatusClass } from '../../observability/engine/log-queries.js';
import { validate } from '../../http/json-body.js';
import { targetWorkspace } from '../workspaces/access.js';
import { logFilterSchema } from './schemas.js';

const METADATA_PARAMETER = /^metadata\.([^\s]{1,64})$/;

/**
 * The log filters of a query string (or an export body): the named ones, plus any number of
 * `metadata.<key>=<value>`; `user` is `metadata._user`. Unknown parameters are a 400, not silently ignored.
 */
export function readLogFilter(query: Record<string, unknown>, extraAllowed: readonly string[] = []): { filter: LogFilter; workspaceId?: string } {
  const named: Record<string, unknown> = {};
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    const metadataKey = METADATA_PARAMETER.exec(name)?.[1];
    if (metadataKey !== undefined) {
      if (typeof value !== 'string' || value.length === 0 || value.length > 512) throw badRequest('invalid_request', `${name}: must be a non-empty string of at most 512 characters`, name);
      metadata[metadataKey] = value;
    } else if (!extraAllowed.includes(name)) {
      named[name] = value;
    }
  }
  const parsed = validate(logFilterSchema, named);
  if (parsed.from !== undefined && parsed.to !== undefined && Date.parse(parsed.from) > Date.parse(parsed.to)) throw badRequest('invalid_request', 'from: must not be after to', 'from');
  if (parsed.user !== undefined) {
    if (metadata._user !== undefined && metadata._user !== parsed.user) throw badRequest('invalid_request', 'user and metadata._user disagree', 'user');
    metadata._user = parsed.user;
  }
  const filter: LogFilter = {
    trace_id: parsed.trace_id,
    metadata,
    provider: parsed.provider,
    model: parsed.model,
    status: parsed.status === undefined ? undefined : parsed.status === 'error' ? 'error' : parsed.status.endsWith('xx') ? (parsed.status as StatusClass) : Number(parsed.status),
    cache_status: parsed.cache_status,
    api_key_id: parsed.api_key_id,
    virtual_key_id: parsed.virtual_key_id,
    from: parsed.from === undefined ? undefined : new Date(parsed.from).toISOString(),
    to: parsed.to === undefined ? undefined : new Date(parsed.to).toISOString(),
  };
  return { filter, workspaceId: parsed.workspace_id };
}

/** The workspace whose logs a call reads: its own, or (admin callers) another of its organisation. */
export async function logWorkspace(principal: Principal, requested: string | undefined): Promise<string> {
  return (await targetWorkspace(principal, requested)).id;
}
