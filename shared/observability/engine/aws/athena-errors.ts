import { GatewayError } from '../../../http/errors.js';

type AthenaEngineErrorCode = 'query_failed' | 'query_timeout' | 'invalid_export_destination';

const STATUS_BY_CODE: Record<AthenaEngineErrorCode, number> = { query_failed: 502, query_timeout: 504, invalid_export_destination: 400 };

/**
 * Failures of a request-log query on Athena, as GatewayErrors so the read APIs answer them in the one error shape:
 * a query that failed or was cancelled (the scan limit of the workgroup cancels it too) is a 502 with the engine's
 * reason, a timeout a 504, a bad export location a 400. `code` is stable for that mapping.
 */
export class AthenaEngineError extends GatewayError {
  constructor(
    message: string,
    override readonly code: AthenaEngineErrorCode,
  ) {
    super(STATUS_BY_CODE[code], code, message, code === 'query_timeout' ? { type: 'timeout_error' } : {});
    this.name = new.target.name;
  }
}

export class AthenaQueryFailedError extends AthenaEngineError {
  constructor(
    reason: string,
    /** FAILED or CANCELLED (or UNKNOWN when Athena did not say). */
    readonly state: string,
    /** Athena's numeric error type, when given (e.g. 1001 for a user error). */
    readonly errorType?: number,
  ) {
    super(`Athena query ${state.toLowerCase()}: ${reason}`, 'query_failed');
  }
}

export class AthenaQueryTimeoutError extends AthenaEngineError {
  constructor(readonly timeoutMs: number) {
    super(`Athena query did not finish within ${timeoutMs} ms and was stopped`, 'query_timeout');
  }
}

export class InvalidExportDestinationError extends AthenaEngineError {
  constructor(destination: string) {
    super(`export destination must be an s3:// prefix of letters, digits and / _ . = - ending in '/': ${JSON.stringify(destination)}`, 'invalid_export_destination');
  }
}
