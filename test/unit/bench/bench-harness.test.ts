import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processTree, treeMemory } from '../../../bench/measure/proc-tree.js';
import { sequentialDepth } from '../../../bench/measure/store-proxy.js';
import { parseOptions, resultName, UsageError } from '../../../bench/options.js';
import { rotated, summarize, type Sample } from '../../../bench/phases/aws-shaped.js';
import { FLAT_SLOPE_KIB_PER_1K, flatness, type RssSample } from '../../../bench/phases/soak.js';

const samples = (count: number, bytesPerRequest: number, requests = 30_000): RssSample[] =>
  Array.from({ length: count }, (_, index) => {
    const done = Math.round((index / (count - 1)) * requests);
    const total = 300 * 1024 * 1024 + done * bytesPerRequest;
    return { requests: done, seconds: index, totalBytes: total, mainBytes: total - 100, childrenBytes: 100 };
  });

describe('bench options', () => {
  it('takes --store-latency-ms and the new phases, and a non-default latency is a partial run', () => {
    const options = parseOptions(['--phases', 'aws-shaped,soak,semantic-scale', '--store-latency-ms', '12']);
    expect([...options.phases]).toEqual(['aws-shaped', 'soak', 'semantic-scale']);
    expect(options.storeLatencyMs).toBe(12);
    expect(resultName(parseOptions(['--store-latency-ms', '12']))).toBe('partial');
    expect(resultName(parseOptions([]))).toBe('latest');
    expect(parseOptions([]).storeLatencyMs).toBe(5);
  });

  it('takes --soak-requests in either order with --quick; a length other than the full run’s is a partial run', () => {
    expect(parseOptions(['--soak-requests', '90000']).plan.soak).toEqual({ requests: 90_000, connections: 16 });
    expect(parseOptions(['--soak-requests', '500', '--quick']).plan.soak.requests).toBe(500);
    expect(resultName(parseOptions(['--soak-requests', '30000']))).toBe('partial');
    expect(resultName(parseOptions(['--soak-requests', '60000']))).toBe('latest');
    expect(() => parseOptions(['--soak-requests', '1e5'])).toThrow(/whole number/);
    expect(() => parseOptions(['--soak-requests', '10'])).toThrow(/at least 100/);
  });

  it('refuses a latency that is not a number of ms, and unknown phases', () => {
    expect(() => parseOptions(['--store-latency-ms', 'fast'])).toThrow(UsageError);
    expect(() => parseOptions(['--store-latency-ms', '-1'])).toThrow(/from 0 to 1000/);
    expect(() => parseOptions(['--store-latency-ms'])).toThrow(/needs a value/);
    expect(() => parseOptions(['--phases', 'aws'])).toThrow(/unknown phase/);
  });

  it('keeps a 60,000-request soak (at least the issue’s 30,000) in the full plan and a small one in quick, without 100k semantic entries', () => {
    expect(parseOptions([]).plan.soak).toEqual({ requests: 60_000, connections: 16 });
    const quick = parseOptions(['--quick']).plan;
    expect(quick.soak.requests).toBeLessThan(5_000);
    expect(quick.semanticScale.sizes).not.toContain(100_000);
  });
});

describe('soak RSS verdict', () => {
  it('calls a steady RSS flat and a growing one not flat', () => {
    expect(flatness(samples(40, 0), 30_000)).toMatchObject({ flat: true });
    const leaking = flatness(samples(40, 1024), 30_000);
    expect(leaking.flat).toBe(false);
    expect(leaking.secondHalfSlopeKiBPer1k).toBeCloseTo(1000, 0);
    expect(leaking.secondHalfSlopeKiBPer1k).toBeGreaterThan(FLAT_SLOPE_KIB_PER_1K);
    // The growth is gw's own (the children stay at 100 bytes in these samples).
    expect(leaking.secondHalfSlopeMainKiBPer1k).toBeCloseTo(1000, 0);
    expect(leaking.secondHalfSlopeChildrenKiBPer1k).toBeCloseTo(0, 5);
  });

  it('reports the slope of a short soak without judging it, and nothing from too few samples', () => {
    const short = flatness(samples(40, 1024, 1_500), 1_500);
    expect(short.flat).toBeUndefined();
    expect(short.secondHalfSlopeKiBPer1k).toBeGreaterThan(0);
    expect(flatness(samples(5, 0), 30_000)).toEqual({});
  });
});

describe('sequential depth of store calls', () => {
  it('counts the longest chain of calls that did not overlap', () => {
    const call = (receivedAt: number, answeredAt?: number) => ({ operation: 'GetItem', receivedAt, answeredAt });
    expect(sequentialDepth([], 10)).toBe(0);
    expect(sequentialDepth([call(0, 5), call(1, 6), call(2, 7)], 10)).toBe(1);
    expect(sequentialDepth([call(0, 5), call(5, 10), call(6, 9), call(10, 12)], 20)).toBe(3);
    // Unanswered calls end at the window's end.
    expect(sequentialDepth([call(0, 5), call(6)], 8)).toBe(2);
  });
});

describe('AWS-shaped added latency (issue #34)', () => {
  const sample = (gwMs: number, directMs: number, proxyMs: number, hotDirectMs: number): Sample => ({ calls: [], unanswered: 0, depth: 0, gwMs, directMs, proxyMs, hotDirectMs, timeline: '' });

  it('compares gw with the direct request measured after the same idle, and keeps the earlier measure apart', () => {
    // Waking up after the idle costs every path ~2 ms here; gw's own work is 1 ms on top of the direct path.
    const row = summarize({ scenario: 'warm plain', status: 'measured', goal: 0 }, [sample(3.5, 2.5, 3, 0.5), sample(3.4, 2.4, 2.9, 0.5), sample(3.6, 2.6, 3.1, 0.5)]);
    expect(row.addedVsDirect?.p50).toBeCloseTo(1, 5);
    expect(row.proxyAddedVsDirect?.p50).toBeCloseTo(0.5, 5);
    // Against a direct request sent while everything was awake, the wake-up would count as gw's: +3 ms.
    expect(row.addedVsHotDirect?.p50).toBeCloseTo(3, 5);
    expect(row.directP50).toEqual({ afterIdle: 2.5, hot: 0.5 });
    expect(row.met).toBe(true);
  });

  it('rotates the order of the idle-measured paths, so none always goes first', () => {
    expect(rotated(['gw', 'direct', 'proxy'], 0)).toEqual(['gw', 'direct', 'proxy']);
    expect(rotated(['gw', 'direct', 'proxy'], 1)).toEqual(['direct', 'proxy', 'gw']);
    expect(rotated(['gw', 'direct', 'proxy'], 5)).toEqual(['proxy', 'gw', 'direct']);
  });
});

describe('process tree', () => {
  it('finds a child process and sums its RSS into the tree', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      expect(processTree(process.pid)).toContain(child.pid);
      const memory = treeMemory(process.pid);
      expect(memory?.members.map((member) => member.pid)).toContain(child.pid);
      expect(memory!.childrenRssBytes).toBeGreaterThan(0);
      expect(memory!.totalRssBytes).toBe(memory!.mainRssBytes + memory!.childrenRssBytes);
    } finally {
      child.kill();
    }
  });

  it('is empty for no process', () => {
    expect(processTree(undefined)).toEqual([]);
    expect(treeMemory(undefined)).toBeUndefined();
  });
});
