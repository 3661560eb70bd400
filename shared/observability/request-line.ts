import { onDrain } from './background.js';
import { logger } from './logger.js';
import { isoTime } from '../iso-time.js';
import { settings } from '../settings.js';

/** Powertools' threshold of INFO (LogLevelThreshold.INFO): a lower or equal level prints info lines. */
const INFO_THRESHOLD = 12;
const SERVICE = process.env.POWERTOOLS_SERVICE_NAME ?? 'gw';
/** Lines wait at most this long, or until MAX_WAITING of them are there, then go out in one write. */
const WRITE_DELAY_MS = 50;
const MAX_WAITING = 256;

let waiting: string[] = [];
let timer: NodeJS.Timeout | undefined;
let pretty: boolean | undefined;
let prettyLine: ((now: number, fields: Record<string, unknown>) => string) | undefined;

/**
 * The local runtime's human line (pretty-request-line.ts), handed over when it starts (infra/local/server.ts): a
 * Lambda never writes it, so its cold start never loads it. Without it a pretty terminal gets the JSON line.
 */
export function usePrettyRequestLines(format: (now: number, fields: Record<string, unknown>) => string): void {
  prettyLine = format;
}

// A Lambda's drain (after its response) and the local runtime's shutdown write what waits.
onDrain(async () => writeWaitingLines());
process.once('exit', () => writeWaitingLines());

/**
 * Whether request lines (and metric lines, see metrics.ts) are for a person at a terminal: GW_LOG_FORMAT=pretty
 * outside Lambda. A Lambda always writes JSON: CloudWatch Logs Insights and metric filters read it. Read once.
 */
export function prettyLogFormat(): boolean {
  pretty ??= settings().GW_LOG_FORMAT === 'pretty' && process.env.AWS_LAMBDA_FUNCTION_NAME === undefined;
  return pretty;
}

/**
 * The one `request completed` line per request, in the logger's JSON shape but written directly: through the
 * Powertools formatter it cost ~42 µs of CPU per request, this ~4 µs (issue #23). Lines are written in batches
 * (one write to stdout per 50 ms or 256 lines, not one per request: issue #34), each line whole and unchanged.
 * It stays at INFO because operators and the benchmark's lost-log count read it; the full record is the request
 * log (shared/observability/request-record.ts). Under GW_LOG_FORMAT=pretty it is one short human line instead.
 */
export function logRequestCompleted(fields: Record<string, unknown>): void {
  // The level is read once per batch: Powertools' getter looks it up through its invocation store and the
  // environment on every call (~1 % of gw's main thread). A change of level shows from the next batch (≤ 50 ms).
  if (waiting.length === 0 && logger.level > INFO_THRESHOLD) return;
  const now = Date.now();
  waiting.push(prettyLine && prettyLogFormat() ? prettyLine(now, fields) : `${JSON.stringify({ level: 'INFO', message: 'request completed', timestamp: isoTime(now), service: SERVICE, ...fields })}\n`);
  if (waiting.length >= MAX_WAITING) writeWaitingLines();
  else timer ??= setTimeout(writeWaitingLines, WRITE_DELAY_MS).unref();
}

function writeWaitingLines(): void {
  clearTimeout(timer);
  timer = undefined;
  if (waiting.length === 0) return;
  const lines = waiting;
  waiting = [];
  process.stdout.write(lines.join(''));
}
