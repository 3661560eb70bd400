import { describe, expect, it } from 'vitest';
import { beginBackgroundScope, drainAllBackgroundWork, drainBackgroundWork, runInBackground } from '../../../shared/observability/background.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One simulated invocation: its own scope, some background work, then its drain. */
async function invocation(workMs: number, log: string[], name: string): Promise<void> {
  beginBackgroundScope();
  runInBackground(name, async () => {
    await sleep(workMs);
    log.push(`${name} work done`);
  });
  await drainBackgroundWork();
  log.push(`${name} drained`);
}

describe('background work', () => {
  it('a drain waits for its own invocation only, not for concurrent ones', async () => {
    const log: string[] = [];
    await Promise.all([invocation(300, log, 'slow'), invocation(10, log, 'fast')]);
    expect(log.indexOf('fast drained')).toBeLessThan(log.indexOf('slow work done'));
    expect(log.indexOf('slow work done')).toBeLessThan(log.indexOf('slow drained'));
  });

  it('drainAll waits for every scope, as a shutdown must', async () => {
    const log: string[] = [];
    await (async () => {
      beginBackgroundScope();
      runInBackground('scoped', async () => {
        await sleep(50);
        log.push('scoped done');
      });
    })();
    await drainAllBackgroundWork();
    expect(log).toEqual(['scoped done']);
  });
});
