import { createHash } from 'node:crypto';

/** gw trace ids are free text (x-gw-trace-id): a UUID maps to its 32 hex digits, anything else to a hash. */
export function otelTraceId(gwTraceId: string): string {
  const hex = gwTraceId.replace(/-/g, '').toLowerCase();
  if (/^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex)) return hex;
  return createHash('sha256').update(gwTraceId).digest('hex').slice(0, 32);
}
