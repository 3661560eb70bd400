import { beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { createPolicy, viaMock } from './enforcement-support.js';
import { watchStoreCommands } from '../../support/store-commands.js';

// Issue #44: a request without a valid gw key is refused before it costs a store write (no rate counter, no
// audit event, no last-used stamp, no log item). Every command the process's store client sends is counted by a
// middleware on the real SDK client while only such requests are in flight.
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));

let counting = false;
const commands: string[] = [];
beforeAll(() => {
  watchStoreCommands('unauthenticatedWriteCounter', (command, input) => {
    if (counting) commands.push(`${command} ${JSON.stringify((input as { Key?: unknown }).Key ?? '')}`.trim());
  });
});

const WRITE = /Put|Update|Delete|Write/;

/** The store commands the given requests cause, their background work (logs, charges) included. */
async function storeCommandsOf(send: () => Promise<Response[]>): Promise<string[]> {
  await drainAllBackgroundWork();
  commands.length = 0;
  counting = true;
  try {
    const answers = await send();
    for (const answer of answers) {
      expect(answer.status, await answer.text()).toBe(401);
    }
    await drainAllBackgroundWork();
  } finally {
    counting = false;
  }
  return [...commands];
}

const KEYS: Array<[string, Record<string, string>]> = [
  ['no key', {}],
  ['a malformed key', { 'x-gw-api-key': 'not a key; {"json": true}' }],
  ['a key too long to be one', { 'x-gw-api-key': `gw-${'x'.repeat(400)}` }],
  ['an unknown key', { 'x-gw-api-key': 'gw-sk-this-key-was-never-issued-000000000000' }],
  ['an unknown key as a bearer token', { authorization: 'Bearer gw-sk-never-issued-either-0000000000000' }],
];

describe('unauthenticated requests cost no store write (issue #44)', () => {
  it('cost amplification: every gateway entry point refuses a missing, malformed or unknown key with zero store writes', async () => {
    // A policy that matches every request of the gateway's workspace: counters exist to be written.
    await createPolicy(gateway, 'rate-limits', { name: 'every request', conditions: [{ key: 'workspace_id', value: '*' }], group_by: [{ key: 'workspace_id' }], type: 'requests', unit: 'rpm', value: 1000 });
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 });
    const paths = ['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', '/v1/mcp/some-server'];
    const seen = await storeCommandsOf(() =>
      Promise.all(
        KEYS.flatMap(([, headers]) =>
          paths.map((path) => fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...viaMock(upstream), ...headers }, body })),
        ),
      ),
    );
    expect(seen.filter((command) => WRITE.test(command))).toEqual([]);
  });

  it('cost amplification: the control plane refuses a missing or unknown key with zero store writes', async () => {
    const seen = await storeCommandsOf(() =>
      Promise.all(KEYS.flatMap(([, headers]) => ['/v1/workspaces', '/v1/api-keys', '/v1/policies/rate-limits'].map((path) => fetch(`${gateway.url}${path}`, { headers })))),
    );
    expect(seen.filter((command) => WRITE.test(command))).toEqual([]);
  });
});
