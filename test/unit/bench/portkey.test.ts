import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadResult } from '../../../bench/measure/load.js';
import type { Percentiles } from '../../../bench/measure/stats.js';
import { parseOptions, resultName, USAGE } from '../../../bench/options.js';
import { ChildRegistry } from '../../../bench/processes/children.js';
import {
  isPortkeyInstalled,
  PORTKEY_CACHE_DIR,
  PORTKEY_HTTP_ADAPTER,
  PORTKEY_VERSION,
  portkeyInstallArgs,
  portkeyManifest,
  portkeyServerScript,
  preparePortkey,
} from '../../../bench/processes/portkey.js';
import { renderMarkdown } from '../../../bench/report/markdown.js';
import type { BenchResults, LatencyRow, ThroughputRow } from '../../../bench/report/results.js';
import { evaluateIssue34, evaluatePortkeyGoals } from '../../../bench/report/targets.js';
import { chatRequest } from '../../../bench/mock/payloads.js';
import { directChat, portkeyChat, PROVIDER_TOKEN } from '../../../bench/scenarios/requests.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

const spread = (p50: number): Percentiles => ({ count: 200, p50, p90: p50 + 0.1, p99: p50 + 0.5, min: p50 - 0.1, max: p50 + 1 });

function jsonRow(gwAdded: number, portkeyAdded: number | undefined): LatencyRow {
  const direct = spread(0.2);
  return {
    name: 'JSON',
    metric: 'last byte',
    samples: 200,
    truncated: false,
    direct,
    gw: spread(0.2 + gwAdded),
    added: { p50: gwAdded, p90: gwAdded, p99: gwAdded + 0.3 },
    portkey: portkeyAdded === undefined ? undefined : spread(0.2 + portkeyAdded),
    portkeyAdded: portkeyAdded === undefined ? undefined : { p50: portkeyAdded, p90: portkeyAdded, p99: portkeyAdded + 1 },
  };
}

const load = (requestsPerSecond: number): LoadResult => ({
  connections: 64,
  durationSeconds: 10,
  requestsPerSecond,
  latencyP50Ms: 10,
  latencyP99Ms: 30,
  completed2xx: 10_000,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  statusCounts: { 200: 10_000 },
  cpuMicrosPerRequest: 400,
  cpuMicrosPerRequestMain: 380,
});

const throughputRow = (connections: number, gw: number, portkey?: number): ThroughputRow => ({
  upstream: 'fast',
  connections,
  direct: load(20_000),
  gw: load(gw),
  portkey: portkey === undefined ? undefined : load(portkey),
  ratio: gw / 20_000,
});

describe('--no-portkey', () => {
  it('runs Portkey by default, leaves it out with --no-portkey, and a run without it is partial', () => {
    expect(parseOptions([]).portkey).toBe(true);
    expect(parseOptions(['--quick', '--phases', 'latency,throughput']).portkey).toBe(true);
    expect(parseOptions(['--no-portkey', '--quick']).portkey).toBe(false);
    expect(resultName(parseOptions(['--no-portkey']))).toBe('partial');
    expect(resultName(parseOptions([]))).toBe('latest');
    expect(USAGE).toContain('--no-portkey');
  });
});

describe('the route through Portkey', () => {
  const endpoints = { gwUrl: 'http://127.0.0.1:1', gwKey: 'gwk', mockUrl: 'http://127.0.0.1:4000', portkeyUrl: 'http://127.0.0.1:5000' };

  it('sends the direct request’s body to its chat route, routed to the mock by its headers', () => {
    const json = portkeyChat(endpoints, 'fast', false);
    expect(json.url.href).toBe('http://127.0.0.1:5000/v1/chat/completions');
    // The custom host replaces OpenAI's base URL (…/v1): the mock serves /chat/completions at its root.
    expect(json.headers).toEqual({
      'content-type': 'application/json',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': 'http://127.0.0.1:4000',
      authorization: `Bearer ${PROVIDER_TOKEN}`,
    });
    expect(json.body?.equals(directChat(endpoints, 'fast', false).body!)).toBe(true);
    expect(JSON.parse(portkeyChat(endpoints, 'fast', true).body!.toString('utf8'))).toEqual(chatRequest(undefined, true));
    expect(portkeyChat(endpoints, 'delayed', false).headers['x-portkey-custom-host']).toBe('http://127.0.0.1:4000/delay-20ms');
  });

  it('refuses to build a request when Portkey is not running', () => {
    expect(() => portkeyChat({ ...endpoints, portkeyUrl: undefined }, 'fast', false)).toThrow(/not running/);
  });
});

describe('the Portkey install', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const fakeInstall = (adapterVersion: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-bench-portkey-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'node_modules', '@portkey-ai', 'gateway', 'build'), { recursive: true });
    writeFileSync(portkeyServerScript(dir), '// server');
    writeFileSync(join(dir, 'node_modules', '@portkey-ai', 'gateway', 'package.json'), JSON.stringify({ version: PORTKEY_VERSION }));
    mkdirSync(join(dir, 'node_modules', '@hono', 'node-server'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', '@hono', 'node-server', 'package.json'), JSON.stringify({ version: adapterVersion }));
    return dir;
  };

  it('pins the gateway and overrides its HTTP adapter to the one its streams work with, without install scripts', () => {
    expect(PORTKEY_CACHE_DIR).toBe('node_modules/.cache/gw-bench/portkey-1.15.2');
    expect(portkeyManifest()).toMatchObject({ private: true, dependencies: { '@portkey-ai/gateway': '1.15.2' }, overrides: { '@hono/node-server': '1.13.8' } });
    expect(portkeyInstallArgs('/cache/x')).toEqual(['install', '--prefix', '/cache/x', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']);
  });

  it('reuses a cache folder only when it holds the server with the pinned versions', () => {
    expect(isPortkeyInstalled(fakeInstall(PORTKEY_HTTP_ADAPTER.version))).toBe(true);
    // An install from before the pin (the adapter npm resolves today breaks its streams) is installed again.
    expect(isPortkeyInstalled(fakeInstall('1.19.19'))).toBe(false);
    const empty = mkdtempSync(join(tmpdir(), 'gw-bench-portkey-'));
    dirs.push(empty);
    expect(isPortkeyInstalled(empty)).toBe(false);
  });
});

describe('Portkey offline', () => {
  it('is reported unavailable, not thrown, and leaves no half-installed folder behind', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gw-bench-offline-'));
    try {
      // A registry on a closed loopback port and an empty npm cache: what an offline machine sees.
      const offline = { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0', npm_config_cache: join(root, 'npm-cache'), npm_config_offline: 'false' };
      const lines: string[] = [];
      const prepared = await preparePortkey(new ChildRegistry(), root, { gwUrl: '', gwKey: '', mockUrl: 'http://127.0.0.1:9' }, (line) => lines.push(line), offline);
      expect(prepared).toEqual({ unavailable: expect.stringMatching(/^npm install @portkey-ai\/gateway@1\.15\.2 failed: code ECONNREFUSED; .*request to http:\/\/127\.0\.0\.1:9\/.* failed/) });
      expect(lines).toEqual([expect.stringContaining('installing @portkey-ai/gateway@1.15.2')]);
      expect(existsSync(join(root, PORTKEY_CACHE_DIR))).toBe(false);
      expect(readdirSync(join(root, 'node_modules', '.cache', 'gw-bench')).filter((name) => name.includes('.partial-'))).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('issue #34 goals against Portkey', () => {
  it('divides Portkey’s added p50 by gw’s, and gw’s req/s by Portkey’s at 64 connections', () => {
    const rows = evaluatePortkeyGoals({ latency: [jsonRow(0.25, 1.5)], throughput: [throughputRow(16, 1_000, 900), throughputRow(64, 2_400, 600)], portkey: { version: '1.15.2', settings: '…' } });
    expect(rows).toEqual([
      { goal: 'added p50 ≥ 3× lower than Portkey’s (JSON, sequential): Portkey’s added p50 ÷ gw’s', measured: 'Portkey 1.500 ms ÷ gw 0.250 ms = 6.00×', status: 'met', distance: undefined },
      { goal: 'throughput ≥ 3× Portkey’s at 64 connections, fast upstream, logs on: gw req/s ÷ Portkey req/s', measured: 'gw 2,400 req/s ÷ Portkey 600 req/s = 4.00×', status: 'met', distance: undefined },
    ]);
  });

  it('says how far a missed goal is', () => {
    const rows = evaluatePortkeyGoals({ latency: [jsonRow(0.5, 1)], throughput: [throughputRow(64, 1_500, 1_000)] });
    expect(rows.map((row) => [row.measured, row.status, row.distance])).toEqual([
      ['Portkey 1.000 ms ÷ gw 0.500 ms = 2.00×', 'missed', '1.00× short'],
      ['gw 1,500 req/s ÷ Portkey 1,000 req/s = 1.50×', 'missed', '1.50× short'],
    ]);
  });

  it('judges a quick run at its one level, 16 connections, and says so', () => {
    const [, throughput] = evaluatePortkeyGoals({ latency: [], throughput: [throughputRow(16, 3_000, 900)] });
    expect(throughput.goal).toContain('at 64 connections (this run: 16 connections, the largest level of its plan)');
    expect([throughput.measured, throughput.status]).toEqual(['gw 3,000 req/s ÷ Portkey 900 req/s = 3.33×', 'met']);
  });

  it('counts a gw that adds nothing measurable against a Portkey that adds time as met', () => {
    const [latency] = evaluatePortkeyGoals({ latency: [jsonRow(-0.01, 0.8)], throughput: [] });
    expect([latency.measured, latency.status]).toEqual(['Portkey 0.800 ms ÷ gw -0.010 ms: gw adds nothing measurable', 'met']);
  });

  it('says why nothing was measured when Portkey did not run, and issue #34’s rows end with these two', () => {
    const portkey = { version: '1.15.2', settings: '…', unavailable: 'left out (--no-portkey)' };
    const rows = evaluatePortkeyGoals({ latency: [jsonRow(0.2, undefined)], throughput: [throughputRow(64, 2_000)], portkey });
    expect(rows.map((row) => [row.measured, row.status])).toEqual([
      ['not measured (Portkey: left out (--no-portkey))', 'n/a'],
      ['not measured (Portkey: left out (--no-portkey))', 'n/a'],
    ]);
    const all = evaluateIssue34({ latency: [], throughput: [], portkey } as unknown as Omit<BenchResults, 'targets' | 'issue23' | 'issue34'>);
    expect(all.slice(-2).map((row) => row.goal.slice(0, 20))).toEqual(['added p50 ≥ 3× lower', 'throughput ≥ 3× Port']);
  });

  it('shows Portkey’s columns beside the minimal proxy’s in the report', () => {
    const results = {
      meta: {
        date: '2026-11-27T16:00:00.000Z',
        plan: 'quick',
        phases: ['latency', 'throughput'],
        machine: { cpu: 'CPU', logicalCpus: 2, memoryBytes: 8 * 1024 ** 3, os: 'Linux x64', node: 'v20.20.2' },
        loadAverage: { start: [1, 1, 1], end: [1, 1, 1] },
        gw: { command: 'node --import tsx infra/local/main.ts', settings: {}, extraSettings: {} },
        durationSeconds: 100,
      },
      latency: [jsonRow(0.25, 1.5)],
      throughput: [throughputRow(64, 2_400, 600)],
      process: { logLines: 0, requestCompletedLines: 0, logErrorLines: 0 },
      features: [],
      coldStart: { built: false, rows: [] },
      targets: [],
      issue23: [],
      issue34: [],
      errors: [],
      notes: [],
    } as BenchResults;
    const markdown = renderMarkdown(results);
    expect(markdown).toContain('| Portkey added p50 / p99 |');
    expect(markdown).toContain('| +1.500 / +2.500 |');
    expect(markdown).toMatch(/\| Portkey req\/s \| Portkey CPU µs\/req \|/);
    expect(markdown).toContain('| 600 | 400 |');
  });
});

describe('a comparison process', () => {
  it('that dies is reported with the run’s errors without stopping gw’s phases, and one that died starting can be dismissed', async () => {
    const registry = new ChildRegistry();
    const optional = registry.start({ runtime: 'harness', name: 'comparison', nodeArgs: ['-e', 'process.exit(3)'], cwd: ROOT, env: {}, optional: true });
    await optional.exited;
    expect(() => registry.assertAlive()).not.toThrow();
    expect(registry.unexpectedExits()).toEqual([expect.stringMatching(/^comparison exited unexpectedly \(code 3\)/)]);
    registry.dismissExit(optional);
    expect(registry.unexpectedExits()).toEqual([]);
    const required = registry.start({ runtime: 'harness', name: 'gw', nodeArgs: ['-e', 'process.exit(4)'], cwd: ROOT, env: {} });
    await required.exited;
    expect(() => registry.assertAlive()).toThrow(/gw exited unexpectedly \(code 4\)/);
  });
});

describe('loopback-only preload', () => {
  const addressOf = (preload: boolean) =>
    new Promise<string>((resolve, reject) => {
      const script = "const s = require('node:net').createServer(); s.listen(0, undefined, () => { console.log(s.address().address); s.close(); });";
      const child = spawn(process.execPath, [...(preload ? ['--import', './bench/processes/loopback-only.mjs'] : []), '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.once('error', reject);
      child.once('exit', () => resolve(out.trim()));
    });

  it('makes a server that names no host listen on 127.0.0.1 instead of every interface', async () => {
    expect(await addressOf(true)).toBe('127.0.0.1');
    expect(await addressOf(false)).not.toBe('127.0.0.1');
  });
});
