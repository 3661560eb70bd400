/**
 * Imported first by main.ts, before any other module loads (loading the rest takes a moment): a Ctrl-C or SIGTERM in
 * that moment is kept, not left to Node's default (which kills the process at once), and handed to the real
 * handler when main installs it.
 */
const early: NodeJS.Signals[] = [];
const keep = (signal: NodeJS.Signals) => void early.push(signal);
process.on('SIGINT', keep);
process.on('SIGTERM', keep);

/** Installs `handler` for SIGINT and SIGTERM and gives it the signals that came before. */
export function handleSignals(handler: (signal: NodeJS.Signals) => void): void {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  process.off('SIGINT', keep);
  process.off('SIGTERM', keep);
  for (const signal of early.splice(0)) handler(signal);
}
