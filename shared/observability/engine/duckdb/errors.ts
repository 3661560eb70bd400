import { GatewayError } from '../../../http/errors.js';

/**
 * The request-log engine cannot serve (issue #42): its file is damaged or held by another process, or its worker
 * stopped. The read APIs answer it 503 `log_engine_unavailable` with `retry-after`, never a bare 500; the local
 * runtime's start-up prints `startupLine`, one line that says what is wrong and what to do.
 */
export class LogEngineUnavailableError extends GatewayError {
  constructor(
    message: string,
    /** The one line `npm start` prints when the engine cannot open. */
    readonly startupLine: string = message,
    options: { cause?: unknown } = {},
  ) {
    super(503, 'log_engine_unavailable', message, { headers: { 'retry-after': '5' }, cause: options.cause });
    this.name = 'LogEngineUnavailableError';
  }
}

/** Why DuckDB could not open `path`, as the error the read APIs answer and the line start-up prints. */
export function openFailure(path: string, reason: string): LogEngineUnavailableError {
  const message = 'Request logs are unavailable: the log engine could not open its database; see the server log';
  const holder = /Conflicting lock is held in (.+?) \(PID (\d+)\)/.exec(reason);
  if (holder) {
    return new LogEngineUnavailableError(message, `the request-log database ${path} is held by another process (${holder[1]}, PID ${holder[2]}): is another gw using it? Stop that process first, or point GW_LOG_DUCKDB_PATH elsewhere`);
  }
  if (/not a valid DuckDB database|Could not read enough bytes|Corrupt|checksum|Invalid|Serialization/i.test(reason)) {
    const aside = `${path}.broken-${new Date().toISOString().slice(0, 10)}`;
    return new LogEngineUnavailableError(
      message,
      `the request-log database ${path} is damaged (${firstLine(reason)}): move it aside (mv '${path}' '${aside}') and start again; gw creates a new one and keeps the journal's unwritten records`,
    );
  }
  return new LogEngineUnavailableError(message, `could not open the request-log database ${path}: ${firstLine(reason)}`);
}

function firstLine(text: string): string {
  return text.split('\n')[0].slice(0, 300);
}
