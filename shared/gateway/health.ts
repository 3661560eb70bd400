import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { GatewayError } from '../http/errors.js';
import { jsonResponse, type Handler } from '../http/types.js';
import { logEngineHealth } from '../observability/engine/select.js';
import type { LogSinkHealth } from '../observability/engine/duckdb/engine.js';
import { logger } from '../observability/logger.js';
import { settings } from '../settings.js';
import { dynamoDocumentClient } from '../store/dynamo-client.js';
import { keys } from '../store/keys.js';
import { MAIN_TABLE, tableName } from '../store/table-definitions.js';
import { GW_VERSION } from '../version.js';


/** One cheap read of the main table: proves the store answers, the table exists and gw may read it. */
export async function probeStore(): Promise<void> {
  await dynamoDocumentClient().send(new GetCommand({ TableName: tableName(settings(), MAIN_TABLE), Key: keys.bootstrapMarker }));
}

/**
 * `GET /health`, outside /v1 and without a key, for load balancers and uptime checks: 200 with the version and
 * no store call, so it costs nothing and says the function is up. `?deep=true` also reads the store; it needs an
 * organisation admin key (it is a probe of gw's internals) and answers 503 when the store fails. Where this process
 * writes request logs itself (the local DuckDB engine), it also reports the log engine (issue #42): records not yet
 * written, records dropped, a write failure; a log engine that is not ok makes the status `degraded` (still 200:
 * requests are answered, only their records are at risk).
 */
export function healthHandler(
  authenticator: ApiKeyAuthenticator,
  checkStore: () => Promise<void> = probeStore,
  checkLogEngine: () => Promise<LogSinkHealth | undefined> = logEngineHealth,
): Handler {
  return async (request) => {
    const deep = request.query.deep;
    if (deep === undefined || deep === 'false') return jsonResponse(200, { status: 'ok', version: GW_VERSION }, { 'cache-control': 'no-store' });
    if (deep !== 'true') throw new GatewayError(400, 'invalid_request', 'deep must be true or false', { param: 'deep' });
    const key = request.headers['x-gw-api-key'] || request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    const principal = await authenticator.authenticate(key);
    if (principal.kind !== 'admin') throw new GatewayError(403, 'admin_required', 'A deep health check needs an organisation admin key');
    const started = Date.now();
    const logs = await checkLogEngine().catch((error: unknown): LogSinkHealth => ({ status: 'failed', pending_bytes: 0, pending_in_memory: 0, dropped_records: 0, error: (error as Error).message }));
    const logChecks = logs ? { log_engine: logs } : {};
    if (logs && logs.status !== 'ok') logger.warn('deep health check: the request-log engine is not ok', { log_engine: logs });
    try {
      await checkStore();
    } catch (error) {
      logger.error('deep health check: the store did not answer', { error: error as Error });
      return jsonResponse(503, { status: 'unavailable', version: GW_VERSION, checks: { store: { status: 'failed', latency_ms: Date.now() - started }, ...logChecks } }, { 'cache-control': 'no-store' });
    }
    const status = logs && logs.status !== 'ok' ? 'degraded' : 'ok';
    return jsonResponse(200, { status, version: GW_VERSION, checks: { store: { status: 'ok', latency_ms: Date.now() - started }, ...logChecks } }, { 'cache-control': 'no-store' });
  };
}
