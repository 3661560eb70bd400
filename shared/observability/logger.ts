import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import { merged } from '../merged.js';

/** The process's own logger: what every line written outside an invocation scope goes through. */
const processLogger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'gw' });

/** The logger of the invocation running on this async path (runInInvocationScope), if any. */
const invocationLoggers = new AsyncLocalStorage<Logger>();
// Methods handed out bound to the logger they belong to (Logger keeps its state in private fields, which a call
// through the proxy with `this` = proxy cannot reach); kept, so a log call allocates nothing.
const boundMethods = new WeakMap<Logger, Map<PropertyKey, unknown>>();

/**
 * The Powertools logger every module imports. Inside an invocation scope it is that invocation's child logger,
 * elsewhere the process's: Lambda context keys (`function_name`, `function_request_id`, …) and keys a handler
 * appends then stay with the invocation that added them. Without this, the local runtime — one process serving
 * requests while it runs the scheduled functions — wrote `function_name: gw-restore-budgets` on control-plane
 * request lines long after the job had finished (issue #43), and concurrent invocations would swap context.
 * Request-scoped lines carry the trace id explicitly (see `requestLogger`) rather than through appended keys.
 */
export const logger: Logger = new Proxy(processLogger, {
  get(target, property) {
    const current = invocationLoggers.getStore() ?? target;
    const value: unknown = Reflect.get(current, property, current);
    if (typeof value !== 'function') return value;
    let methods = boundMethods.get(current);
    if (!methods) boundMethods.set(current, (methods = new Map()));
    // A replaced method (a test's spy) is a different function: bind it anew.
    const cached = methods.get(property) as { of: unknown; bound: unknown } | undefined;
    if (cached?.of === value) return cached.bound;
    const bound = (value as (...args: unknown[]) => unknown).bind(current);
    methods.set(property, { of: value, bound });
    return bound;
  },
  set(target, property, value) {
    return Reflect.set(invocationLoggers.getStore() ?? target, property, value);
  },
});

/**
 * Runs one invocation (a scheduled function's run, a control-plane event) with a logger of its own: a child of
 * the process's logger (same level, service and persistent keys), which the invocation's `addContext` and
 * `appendKeys` change without touching any other invocation, before, after or at the same time.
 */
export function runInInvocationScope<R>(work: () => R): R {
  return invocationLoggers.run(processLogger.createChild(), work);
}

/** A Lambda handler whose every invocation runs in its own logger scope; the handler's own properties are kept. */
export function withInvocationLogger<H extends (...args: never[]) => unknown>(handler: H): H {
  const scoped = (...args: Parameters<H>) => runInInvocationScope(() => handler(...args));
  return Object.assign(scoped, handler) as unknown as H;
}

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
