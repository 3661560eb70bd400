import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type Vitest } from 'vitest/node';
import LongestFirstSequencer, { loadWeights } from '../../support/test-sequencer.js';

/**
 * The run's order on a clean clone (CI): vitest has no durations of its own there, and its fallback (file size) once
 * left the ~40 s console "done when" files (9 lines each) for the end of the run. A real vitest (no config file, no
 * cache: a clean clone's view) and its real test specifications; only the sequencer is under test.
 */
let vitest: Vitest;
beforeAll(async () => {
  vitest = await createVitest('test', { config: false, cache: false, watch: false, include: ['test/**/*.test.ts'] });
});
afterAll(async () => {
  await vitest?.close();
});

describe('the test sequencer (test/support/test-sequencer.ts)', () => {
  it('with no record of vitest (a clean clone) starts files by their committed weight, the longest first: the small long console files before the long small ones', async () => {
    const weights = loadWeights();
    const files = ['test/integration/console/console-done-when-desktop.test.ts', 'test/unit/iso-time.test.ts', 'test/infra/functions.test.ts', 'test/integration/chat-passthrough.test.ts'];
    for (const file of files) expect(weights[file], file).toBeGreaterThan(0);
    const specifications = await vitest.globTestSpecifications(files);
    const sorted = await new LongestFirstSequencer(vitest).sort(specifications);
    const order = sorted.map((specification) => specification.moduleId.slice(vitest.config.root.length + 1));
    expect(order).toEqual([...files].sort((a, b) => weights[b] - weights[a]));
    expect(order[0]).toBe('test/integration/console/console-done-when-desktop.test.ts');
  });

  it('gives a file it has no weight for the median weight, so a new file neither jumps the queue nor waits for the end', async () => {
    const weights = loadWeights();
    const values = Object.values(weights).sort((a, b) => a - b);
    const median = values[Math.floor(values.length / 2)];
    const heavier = Object.keys(weights).find((file) => weights[file] > median * 4)!;
    const lighter = Object.keys(weights).find((file) => weights[file] < median / 4)!;
    const unknown = 'test/unit/support/test-sequencer.test.ts';
    delete weights[unknown];
    expect(loadWeights()[unknown]).toBeUndefined();
    const sorted = await new LongestFirstSequencer(vitest).sort(await vitest.globTestSpecifications([lighter, unknown, heavier]));
    expect(sorted.map((specification) => specification.moduleId.slice(vitest.config.root.length + 1))).toEqual([heavier, unknown, lighter]);
  });

  it("is the sequencer of the repository's vitest config", async () => {
    const configured = await createVitest('test', { cache: false, watch: false });
    try {
      expect(configured.config.sequence.sequencer.name).toBe(LongestFirstSequencer.name);
    } finally {
      await configured.close();
    }
  });
});
