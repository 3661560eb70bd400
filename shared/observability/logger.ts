import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The process's Powertools logger. Request-scoped lines carry the trace id explicitly (see `requestLogger`)
 * rather than through appended keys, because the local runtime serves concurrent requests in one process.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gw' });

export interface RequestLogger {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export function requestLogger(traceId: string): RequestLogger {
  return {
    info: (message, extra) => logger.info(message, { trace_id: traceId, ...extra }),
    warn: (message, extra) => logger.warn(message, { trace_id: traceId, ...extra }),
    error: (message, extra) => logger.error(message, { trace_id: traceId, ...extra }),
  };
}
