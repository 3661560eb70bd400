/** The gw headers every gateway response carries (errors included, as far as they are known). */
export interface GatewayHeaderValues {
  traceId: string;
  provider?: string;
  cacheStatus?: 'HIT' | 'SEMANTIC HIT' | 'MISS' | 'SEMANTIC MISS' | 'REFRESH' | 'DISABLED';
  retryAttemptCount?: number;
  lastUsedOptionIndex?: string;
}

export function gatewayHeaders(values: GatewayHeaderValues): Record<string, string> {
  const headers: Record<string, string> = {
    'x-gw-trace-id': values.traceId,
    'x-gw-cache-status': values.cacheStatus ?? 'DISABLED',
    'x-gw-retry-attempt-count': String(values.retryAttemptCount ?? 0),
  };
  if (values.provider) headers['x-gw-provider'] = values.provider;
  if (values.lastUsedOptionIndex) headers['x-gw-last-used-option-index'] = values.lastUsedOptionIndex;
  return headers;
}
