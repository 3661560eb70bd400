import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRawApiKey, hashApiKey, maskApiKey } from '../../../shared/auth/api-key-secrets.js';
import { ApiKeyRepository } from '../../../shared/store/api-key-repository.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { eventually } from '../enforcement/enforcement-support.js';

// The local runtime runs both scheduled functions on a timer (every 5 minutes by default; 50 ms here).
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ GW_LOCAL_SCHEDULE_INTERVAL_MS: '50' });
});
afterAll(async () => {
  await gateway?.close();
});

describe('the local runtime’s schedules', () => {
  it('expire keys and reset budgets without anyone calling the functions', async () => {
    const raw = generateRawApiKey();
    const keyId = randomUUID();
    await new ApiKeyRepository().create({
      id: keyId,
      key_hash: hashApiKey(raw),
      masked: maskApiKey(raw),
      name: 'already expired',
      kind: 'workspace',
      type: 'service',
      organisation_id: gateway.bootstrap.organisationId,
      workspace_id: gateway.bootstrap.workspaceId,
      scopes: [],
      status: 'active',
      created_at: new Date(Date.now() - 120_000).toISOString(),
      expires_at: new Date(Date.now() - 60_000).toISOString(),
    });
    const workspaceId = randomUUID();
    const dueAt = new Date(Date.now() - 60_000).toISOString();
    await new WorkspaceRepository().createWorkspace({
      id: workspaceId,
      organisation_id: gateway.bootstrap.organisationId,
      name: 'timer budget',
      slug: `timer-${workspaceId.slice(0, 8)}`,
      created_at: new Date().toISOString(),
      budget_credit_limit: 5,
      budget_periodic_reset: 'monthly',
      budget_current_usage: 4,
      budget_status: 'active',
      budget_next_reset_at: dueAt,
    });

    const expired = await eventually(async () => {
      const found = await new ApiKeyRepository().findById(keyId);
      return found?.record.status === 'expired' ? found.record : undefined;
    }, 'the timer to expire the key');
    expect(expired.status).toBe('expired');
    const reset = await eventually(async () => {
      const workspace = await new WorkspaceRepository().getWorkspace(workspaceId);
      return workspace?.budget_last_reset_at === dueAt ? workspace : undefined;
    }, 'the timer to reset the budget');
    expect(reset.budget_current_usage).toBe(0);
  });
});
