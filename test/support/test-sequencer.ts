import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest files first, on a clean clone too. vitest orders by the durations of its last run on the machine
 * (node_modules/.vite): CI starts from a clean clone, so it had none and fell back to file size, which says nothing
 * of a file's time (the 9-line console "done when" files, ~40 s each, ran last and the run ended on them). The
 * committed weights (test/support/test-weights.json, seconds per file of one full run; relative sizes are what count)
 * stand in where vitest has no record; a file in neither starts with the median weight. Failed files still go first
 * when vitest knows of them (its own rule).
 */
const WEIGHTS_FILE = new URL('./test-weights.json', import.meta.url);

export function loadWeights(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(WEIGHTS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const weights = loadWeights();
    const known = Object.values(weights).sort((a, b) => a - b);
    const median = known.length > 0 ? known[Math.floor(known.length / 2)] : 0;
    const root = this.ctx.config.root;
    const entries = files.map((file) => {
      const path = relative(root, file.moduleId).split('\\').join('/');
      const recorded = this.ctx.cache.getFileTestResults(`${file.project.name}:${path}`);
      return { file, failed: recorded?.failed === true, seconds: recorded ? recorded.duration / 1000 : (weights[path] ?? median) };
    });
    entries.sort((a, b) => Number(b.failed) - Number(a.failed) || b.seconds - a.seconds);
    return entries.map((entry) => entry.file);
  }
}
