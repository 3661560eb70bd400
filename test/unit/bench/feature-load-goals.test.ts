import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/measure/load.js';
import { upstreamCallsProblem } from '../../../bench/phases/throughput-features.js';
import { nodeText, renderMarkdown } from '../../../bench/report/markdown.js';
import type { BenchResults } from '../../../bench/report/results.js';
import { evaluateIssue34 } from '../../../bench/report/targets.js';

const load = (requestsPerSecond: number, main: number, tree: number, completed2xx = 1_000): LoadResult => ({
  connections: 16,
  durationSeconds: 2,
  requestsPerSecond,
  latencyP50Ms: 8,
  latencyP99Ms: 20,
  completed2xx,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  statusCounts: { 200: completed2xx },
  cpuMicrosPerRequest: tree,
  cpuMicrosPerRequestMain: main,
});

const base = (): Omit<BenchResults, 'targets' | 'issue23' | 'issue34'> => ({
  meta: {
    date: '2026-11-27T16:00:00.000Z',
    plan: 'quick',
    phases: ['throughput'],
    machine: { cpu: 'CPU', logicalCpus: 2, memoryBytes: 8 * 1024 ** 3, os: 'Linux x64', node: 'v20.20.2' },
    runtime: {
      measured: { path: '/cache/node-v24.21.0-linux-x64/bin/node', version: 'v24.21.0', requested: 'lambda', source: 'cache' },
      harness: { version: 'v20.20.2', path: '/usr/bin/node' },
    },
    loadAverage: { start: [1, 1, 1], end: [1, 1, 1] },
    gw: { command: 'node --import tsx infra/local/main.ts', settings: {}, extraSettings: {} },
    durationSeconds: 100,
  },
  latency: [],
  throughput: [{ upstream: 'fast', connections: 16, direct: load(30_000, 30, 30), gw: load(1_800, 380, 395), ratio: 0.06 }],
  throughputFeatures: [
    { name: 'one policy, a saved config, a cache hit', cache: 'hit', connections: 16, gw: load(1_500, 590, 700), upstreamCalls: 0 },
    { name: 'one policy, a saved config, a cache miss (every body unique)', cache: 'miss', connections: 16, gw: load(900, 910, 1_200), upstreamCalls: 1_500 },
  ],
  process: { logLines: 0, requestCompletedLines: 0, logErrorLines: 0 },
  features: [],
  coldStart: { built: false, rows: [] },
  errors: [],
  notes: [],
});

describe('issue #34 CPU goals', () => {
  it('judges gw’s own process: plain against 400 µs, the policy + saved config + cache rows against 600 µs', () => {
    // The CPU rows; the two against Portkey follow them (test/unit/bench/portkey.test.ts).
    expect(evaluateIssue34(base()).slice(0, 3)).toEqual([
      { goal: 'gw process CPU per request ≤ 400 µs at 16 connections (plain: a key, no policy, logs on)', measured: '380 µs (with its child processes 395 µs; 1,800 req/s)', status: 'met', distance: undefined },
      {
        goal: 'gw process CPU per request ≤ 600 µs at 16 connections with one policy, a saved config and a cache lookup (hit)',
        measured: '590 µs (with its child processes 700 µs; 1,500 req/s)',
        status: 'met',
        distance: undefined,
      },
      {
        goal: 'gw process CPU per request ≤ 600 µs at 16 connections with one policy, a saved config and a cache lookup (miss)',
        measured: '910 µs (with its child processes 1,200 µs; 900 req/s)',
        status: 'missed',
        distance: '310 µs over',
      },
    ]);
  });

  it('says "not measured" for a run without the feature loads (an older result, or a failed setup)', () => {
    const rows = evaluateIssue34({ ...base(), throughputFeatures: undefined });
    expect(rows.slice(1, 3).map((row) => [row.measured, row.status])).toEqual([
      ['not measured', 'n/a'],
      ['not measured', 'n/a'],
    ]);
  });

  it('calls a run of hits that reached the provider, or misses that did not, wrong', () => {
    expect(upstreamCallsProblem('hit', 0, load(1, 1, 1))).toBeUndefined();
    expect(upstreamCallsProblem('hit', 3, load(1, 1, 1))).toMatch(/3 requests reached the provider/);
    expect(upstreamCallsProblem('miss', 1_200, load(1, 1, 1, 1_000))).toBeUndefined();
    expect(upstreamCallsProblem('miss', 10, load(1, 1, 1, 1_000))).toMatch(/only 10 of 1000/);
  });
});

describe('the report', () => {
  it('names the Node of the measured processes and the harness’s, and shows the feature loads beside plain gw', () => {
    const results = { ...base(), targets: [], issue23: [], issue34: evaluateIssue34(base()) } as BenchResults;
    expect(nodeText(results)).toBe('measured processes on Node v24.21.0 (the Lambda runtime’s major, from the cache), harness on Node v20.20.2');
    const markdown = renderMarkdown(results);
    expect(markdown).toContain('Linux x64, measured processes on Node v24.21.0');
    expect(markdown).toContain('| plain (a key, no policy, no config) | 1,800 | 20 | 380 (395) | – |');
    expect(markdown).toContain('| one policy, a saved config, a cache miss (every body unique) | 900 | 20 | 910 (1,200) | 1,500 |');
    expect(markdown).toContain('## Issue #34 goals');
  });

  it('says when the harness’s Node stood in for the Lambda’s, and keeps one Node for results from before --node', () => {
    const fallback = { ...base(), targets: [], issue23: [] } as BenchResults;
    fallback.meta = { ...fallback.meta, runtime: { measured: { path: '/usr/bin/node', version: 'v20.20.2', requested: 'lambda', source: 'harness', note: 'offline' }, harness: { version: 'v20.20.2', path: '/usr/bin/node' } } };
    expect(nodeText(fallback)).toBe('measured processes on Node v20.20.2 (the harness’s own, standing in for the Lambda runtime’s), harness on Node v20.20.2');
    fallback.meta = { ...fallback.meta, runtime: undefined };
    expect(nodeText(fallback)).toBe('Node v20.20.2');
  });
});
