import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

// Class: a dependency whose `engines` excludes a Node gw supports makes `npm install` warn EBADENGINE to every
// newcomer (openai 7 and ai 7 ask for Node 22; they live in test/clients/node22, installed by the postinstall).
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };
const supported = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
const nodesGwRunsOn = [semver.minVersion(supported)!.version, '24.0.0', process.versions.node];

describe('the root install warns no EBADENGINE', () => {
  it.each(nodesGwRunsOn)('every locked package accepts Node %s', (node) => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.engines?.node && !semver.satisfies(node, entry.engines.node))
      .map(([path, entry]) => `${path} (${entry.engines!.node})`);
    expect(refusing).toEqual([]);
  });

  it('keeps the Node 22 client releases out of the root lock', () => {
    const clients = JSON.parse(readFileSync('test/clients/node22/package.json', 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(clients.dependencies).sort()).toEqual(['@ai-sdk/openai', 'ai', 'openai']);
    expect(Object.keys(lock.packages)).not.toContain('node_modules/openai7');
  });
});
