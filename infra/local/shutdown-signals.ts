/**
 * How the local runtime tells a second Ctrl-C from the same one seen twice. A terminal sends SIGINT to the whole
 * process group (and systemd sends its SIGTERM to the whole control group), so gw receives the signal directly
 * and again from every parent that relays it (npm forwards signals to its child). Copies of one signal that
 * arrive within `duplicateWindowMs` of the first are that same signal; a signal after the window is the user
 * insisting, and ends the process at once.
 */
export interface ShutdownSignalOptions {
  /** Starts the graceful shutdown (called once). */
  stop(signal: NodeJS.Signals): void;
  /** A later, deliberate signal while the shutdown runs. */
  exitNow(signal: NodeJS.Signals): void;
  duplicateWindowMs?: number;
  now?: () => number;
}

export const DUPLICATE_SIGNAL_WINDOW_MS = 1_000;

export function shutdownSignalHandler(options: ShutdownSignalOptions): (signal: NodeJS.Signals) => void {
  const window = options.duplicateWindowMs ?? DUPLICATE_SIGNAL_WINDOW_MS;
  const now = options.now ?? Date.now;
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  return (signal) => {
    if (!first) {
      first = { signal, at: now() };
      options.stop(signal);
      return;
    }
    // The relayed copy of the signal that started the shutdown (either kind: npm relays both) is not a second one.
    if (now() - first.at < window) return;
    options.exitNow(signal);
  };
}
