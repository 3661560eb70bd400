import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_BEGIN, README_END, readmeBlock, replaceReadmeBlock } from '../../../bench/report/readme-block.js';
import type { BenchResults } from '../../../bench/report/results.js';

// README's bench figures are written from a run's results (stale hand-copied figures: each must name its run).
const results = JSON.parse(readFileSync(new URL('../../../bench/results/latest.json', import.meta.url), 'utf8')) as BenchResults;

describe("README's bench block (bench/report/readme-block.ts)", () => {
  it('names the run every figure comes from: date, commit, Node, load, errors', () => {
    const [first] = readmeBlock(results, 'bench/results/latest.json');
    expect(first).toContain(`${results.meta.date.slice(0, 10)} `);
    expect(first).toContain(`commit ${results.meta.commit}`);
    expect(first).toContain(`Node ${results.meta.runtime!.measured.version}`);
    expect(first).toContain('no errors');
  });

  it('quotes the run\'s own numbers: gw, Portkey, the minimal proxy and direct side by side', () => {
    const text = readmeBlock(results, 'bench/results/latest.json').join('\n');
    const at16 = results.throughput.find((row) => row.upstream === 'fast' && row.connections === 16)!;
    expect(text).toContain(Math.round(at16.gw.requestsPerSecond).toLocaleString('en-US'));
    expect(text).toContain(Math.round(at16.proxy!.cpuMicrosPerRequest!).toLocaleString('en-US'));
    expect(text).toContain('| fast upstream | gw | Portkey | minimal proxy | direct |');
  });

  it('replaces only what lies between the markers, and refuses a README without them', () => {
    const readme = `intro\n${README_BEGIN}\nold figures\n${README_END}\noutro\n`;
    expect(replaceReadmeBlock(readme, ['new', 'lines'])).toBe(`intro\n${README_BEGIN}\nnew\nlines\n${README_END}\noutro\n`);
    expect(() => replaceReadmeBlock('no markers', ['x'])).toThrow(/no .* block/);
  });

  it('README.md has the block', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme.indexOf(README_BEGIN)).toBeGreaterThan(0);
    expect(readme.indexOf(README_END)).toBeGreaterThan(readme.indexOf(README_BEGIN));
  });
});
