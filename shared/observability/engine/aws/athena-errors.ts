/**
 * Failures of a request-log query on Athena. The read APIs turn them into the one error shape: a query that failed
 * or was cancelled (the scan limit of the workgroup cancels it too) is a 502 with the engine's reason, a timeout a
 * 504, a bad export location a 400. `code` is stable for that mapping.
 */
export class AthenaEngineError extends Error {
  constructor(
    message: string,
    readonly code: 'query_failed' | 'query_timeout' | 'invalid_export_destination',
  ) {
    super(message);
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
