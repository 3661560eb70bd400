/**
 * Rewrites README.md's bench block from one run's results: `npx tsx bench/report/update-readme.ts [results.json]`
 * (default bench/results/latest.json, which only a complete full `npm run bench` writes). A quick or partial run's
 * results can be given too; the block then says which phases ran.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { readmeBlock, replaceReadmeBlock } from './readme-block.js';
import type { BenchResults } from './results.js';

const root = resolve(import.meta.dirname, '..', '..');
const source = resolve(process.argv[2] ?? resolve(root, 'bench/results/latest.json'));
const results = JSON.parse(readFileSync(source, 'utf8')) as BenchResults;
const readmePath = resolve(root, 'README.md');
writeFileSync(readmePath, replaceReadmeBlock(readFileSync(readmePath, 'utf8'), readmeBlock(results, relative(root, source))));
console.log(`README.md: bench block written from ${relative(root, source)} (run ${results.meta.date}, commit ${results.meta.commit ?? 'unknown'})`);
