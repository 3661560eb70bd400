import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnforcementSnapshots } from '../../../shared/gateway/enforcement/snapshot-cache.js';
import { keys } from '../../../shared/store/keys.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { watchStoreCommands } from '../../support/store-commands.js';

// Issue #41, item "one read": the enforcement snapshot needs two things of the workspace item, its budget and
// `settings.unpriced_models`. It read the item twice (the budget's projection, then the whole workspace); the
// class is a redundant store read per snapshot load (one more per stale snapshot of every workspace).
let gateway: TestGateway;
const workspaceReads: string[] = [];

beforeAll(async () => {
  gateway = await startTestGateway();
  watchStoreCommands('workspaceItemReadCounter', (command, input) => {
    const key = (input as { Key?: { pk?: unknown } }).Key;
    if (/^Get(Item)?Command$/.test(command) && typeof key?.pk === 'string' && key.pk.startsWith('WS#')) workspaceReads.push(key.pk);
  });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
});

async function admin<T>(method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey }, body: JSON.stringify(body) });
  const parsed = (await response.json()) as T;
  expect(response.status, JSON.stringify(parsed)).toBeLessThan(300);
  return parsed;
}

describe('the enforcement snapshot (redundant store reads)', () => {
  it('reads the workspace item once for its budget and its unpriced-models setting', async () => {
    const workspace = await admin<{ id: string }>('POST', '/v1/workspaces', { name: 'snapshot reads', budget: { credit_limit: 5 } });
    await admin('PATCH', `/v1/workspaces/${workspace.id}`, { settings: { unpriced_models: 'refuse' } });
    const snapshots = new EnforcementSnapshots();

    workspaceReads.length = 0;
    const snapshot = await snapshots.refresh(workspace.id);
    expect(snapshot.budget).toMatchObject({ workspaceId: workspace.id, creditLimit: 5 });
    expect(snapshot.unpricedModels).toBe('refuse');
    expect(workspaceReads).toEqual([keys.workspace(workspace.id).pk]);
  });
});
