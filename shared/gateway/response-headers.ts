/** The gw headers every gateway response carries (errors included, as far as they are known). */
export interface GatewayHeaderValues {
  traceId: string;
  provider?: string;
  cacheStatus?: 'HIT' | 'SEMANTIC HIT' | 'MISS' | 'SEMANTIC MISS' | 'REFRESH' | 'DISABLED';
  retryAttemptCount?: number;
  lastUsedOptionIndex?: string;
  /** Every upstream try of the request in order; sets `x-gw-attempts` and the retry count from them. */
  attempts?: readonly AttemptSummary[];
}

/** What the headers need of one upstream try (an AttemptRecord). */
export interface AttemptSummary {
  target_path: string;
  status: number;
  retry: number;
  error_code?: string;
}

/** At most this many attempts are listed (the config schema allows 5 attempts per target, a few targets). */
const MAX_LISTED_ATTEMPTS = 20;

export function gatewayHeaders(values: GatewayHeaderValues): Record<string, string> {
  const headers: Record<string, string> = {
    'x-gw-trace-id': values.traceId,
    'x-gw-cache-status': values.cacheStatus ?? 'DISABLED',
    'x-gw-retry-attempt-count': String(values.attempts ? retriesOf(values.attempts) : (values.retryAttemptCount ?? 0)),
  };
  if (values.provider) headers['x-gw-provider'] = values.provider;
  if (values.lastUsedOptionIndex) headers['x-gw-last-used-option-index'] = values.lastUsedOptionIndex;
  if (values.attempts && values.attempts.length > 0) headers['x-gw-attempts'] = attemptsHeader(values.attempts);
  return headers;
}

/** Retries over the whole path the answer took: every try that repeated a target, on every target tried. */
export function retriesOf(attempts: readonly AttemptSummary[]): number {
  return attempts.filter((attempt) => attempt.retry > 0).length;
}

/**
 * `x-gw-attempts`: each try as `<target path>=<status>` plus `/<error code>` when it failed, in order, e.g.
 * `config.targets[0]=503/injected_503, config.targets[0]=502/invalid_provider_response, config.targets[1]=200`.
 * Status 0 means the try ended without any HTTP status (gw refused it before sending).
 */
export function attemptsHeader(attempts: readonly AttemptSummary[]): string {
  const listed = attempts.slice(0, MAX_LISTED_ATTEMPTS).map((attempt) => `${attempt.target_path}=${attempt.status}${attempt.error_code ? `/${attempt.error_code}` : ''}`);
  if (attempts.length > MAX_LISTED_ATTEMPTS) listed.push(`+${attempts.length - MAX_LISTED_ATTEMPTS} more`);
  return listed.join(', ');
}
