import { describe, expect, it } from 'vitest';
import { backgroundBacklog, drainAllBackgroundWork, drainBackgroundWork, runInBackground } from '../../../shared/observability/background.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('background work', () => {
  it('a drain waits for all pending work, as a Lambda invocation (one per sandbox) must before it ends', async () => {
    const log: string[] = [];
    runInBackground('slow', async () => {
      await sleep(100);
      log.push('slow done');
    });
    runInBackground('fast', async () => {
      await sleep(5);
      log.push('fast done');
    });
    await drainBackgroundWork();
    log.push('drained');
    expect(log).toEqual(['fast done', 'slow done', 'drained']);
    expect(backgroundBacklog()).toBe(0);
  });

  it('a failing task neither rejects the drain nor stays pending', async () => {
    runInBackground('failing', async () => {
      throw new Error('store unavailable');
    });
    await expect(drainAllBackgroundWork()).resolves.toBe(0);
    expect(backgroundBacklog()).toBe(0);
  });

  it('drainAll gives up at its timeout and says how many tasks were still pending, as a shutdown must', async () => {
    let release!: () => void;
    runInBackground('stuck', () => new Promise<void>((resolve) => (release = resolve)));
    expect(await drainAllBackgroundWork(20)).toBe(1);
    release();
    expect(await drainAllBackgroundWork()).toBe(0);
  });
});
