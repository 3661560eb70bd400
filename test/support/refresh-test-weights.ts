import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Rewrites test/support/test-weights.json (the order test/support/test-sequencer.ts starts files in on a clean clone)
 * from vitest's record of the last runs on this machine: `npx tsx test/support/refresh-test-weights.ts` after a full
 * `npm test`. Files that no longer exist are dropped; files the record lacks keep their old weight.
 */
const CACHE_ROOT = 'node_modules/.vite/vitest';
const OUTPUT = 'test/support/test-weights.json';

function recorded(): Map<string, number> {
  const seconds = new Map<string, number>();
  for (const project of existsSync(CACHE_ROOT) ? readdirSync(CACHE_ROOT) : []) {
    const path = join(CACHE_ROOT, project, 'results.json');
    if (!existsSync(path)) continue;
    const { results } = JSON.parse(readFileSync(path, 'utf8')) as { results: Array<[string, { duration?: number }]> };
    for (const [key, result] of results) if (result.duration !== undefined) seconds.set(key.slice(key.indexOf(':') + 1), result.duration / 1000);
  }
  return seconds;
}

const previous = existsSync(OUTPUT) ? (JSON.parse(readFileSync(OUTPUT, 'utf8')) as Record<string, number>) : {};
const merged = new Map(Object.entries(previous));
for (const [file, seconds] of recorded()) merged.set(file, seconds);
const rows = [...merged].filter(([file]) => existsSync(file)).sort(([, a], [, b]) => b - a);
writeFileSync(OUTPUT, `${JSON.stringify(Object.fromEntries(rows.map(([file, seconds]) => [file, Math.round(seconds * 10) / 10])), null, 1)}\n`);
console.log(`${OUTPUT}: ${rows.length} files, ${rows.reduce((sum, [, seconds]) => sum + seconds, 0).toFixed(0)} s in all`);
