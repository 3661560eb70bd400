import { describe, expect, it } from 'vitest';
import { shutdownSignalHandler } from '../../../infra/local/shutdown-signals.js';

describe('shutdownSignalHandler', () => {
  function handler() {
    let now = 0;
    const calls: string[] = [];
    const onSignal = shutdownSignalHandler({ stop: (signal) => calls.push(`stop ${signal}`), exitNow: (signal) => calls.push(`exit ${signal}`), duplicateWindowMs: 1_000, now: () => now });
    return { onSignal, calls, advance: (ms: number) => (now += ms) };
  }

  it('takes copies of the group signal within the window (direct, relayed, either kind) as one signal', () => {
    const { onSignal, calls, advance } = handler();
    onSignal('SIGINT');
    advance(5);
    onSignal('SIGINT');
    advance(20);
    onSignal('SIGTERM');
    expect(calls).toEqual(['stop SIGINT']);
  });

  it('a signal after the window is the user insisting: exit at once', () => {
    const { onSignal, calls, advance } = handler();
    onSignal('SIGTERM');
    advance(1_000);
    onSignal('SIGINT');
    expect(calls).toEqual(['stop SIGTERM', 'exit SIGINT']);
  });
});
