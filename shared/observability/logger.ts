import { Logger } from '@aws-lambda-powertools/logger';
import { merged } from '../merged.js';

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

/** A request's logger: every line carries its trace id and, once known, its workspace. */
export function requestLogger(traceId: string, workspaceId?: string): RequestLogger {
  const keys = workspaceId === undefined ? { trace_id: traceId } : { trace_id: traceId, workspace_id: workspaceId };
  return {
    info: (message, extra) => logger.info(message, merged(keys, extra)),
    warn: (message, extra) => logger.warn(message, merged(keys, extra)),
    error: (message, extra) => logger.error(message, merged(keys, extra)),
  };
}
