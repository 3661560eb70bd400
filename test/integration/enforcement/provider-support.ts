import { returnAllQuotaLeases } from '../../../shared/gateway/enforcement/quota-leases.js';
import { expect } from 'vitest';
import { rateWindow, resetPeriod } from '../../../shared/gateway/enforcement/windows.js';
import { CounterRepository, counterKey } from '../../../shared/store/counter-repository.js';
import type { TestGateway } from '../../support/gateway.js';

export interface WorkspaceProvider {
  id: string;
  slug: string;
  integrationId: string;
  integrationSlug: string;
}

/**
 * An integration whose stored host is `host` (a mock provider) shared with the gateway's workspace, and a
 * workspace provider enabling it with the given limits, both through the control-plane API.
 */
export async function createWorkspaceProvider(gateway: TestGateway, host: string, slug: string, limits: Record<string, unknown> = {}): Promise<WorkspaceProvider> {
  const send = async (path: string, body: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey }, body: JSON.stringify(body) });
    const answer = (await response.json()) as { id: string; slug: string };
    expect(response.status, JSON.stringify(answer)).toBe(201);
    return answer;
  };
  const integration = await send('/v1/integrations', {
    name: `integration ${slug}`,
    slug: `int-${slug}`,
    provider: 'openai',
    credential: `sk-stored-${slug}`,
    custom_host: host,
    shared_with_workspaces: [gateway.bootstrap.workspaceId],
  });
  const provider = await send('/v1/providers', { integration_id: integration.id, slug, ...limits });
  return { id: provider.id, slug: provider.slug, integrationId: integration.id, integrationSlug: integration.slug };
}

/** Headers that send a chat request through a workspace provider (its stored credential and host). */
export function viaProvider(slug: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-gw-provider': `@${slug}`, ...extra };
}

/** A workspace provider's counter of a rate limit (current window) or of its budget (current period). */
export async function providerCounter(provider: WorkspaceProvider, which: { type: 'requests' | 'tokens'; unit: 'rpm' | 'rph' | 'rpd' } | { budget: 'none' | 'weekly' | 'monthly' }): Promise<number> {
  // This process's unused quota leases are counted in the store until given back.
  await returnAllQuotaLeases();
  const now = Date.now();
  if ('budget' in which) {
    const period = resetPeriod(which.budget, now);
    return new CounterRepository().read({ pk: counterKey(`provider-${provider.id}`, 'credit', 'usd', period.id), windowEnd: period.end }, now);
  }
  const window = rateWindow(which.unit, now);
  return new CounterRepository().read({ pk: counterKey(`provider-${provider.id}`, 'rate', which.type, window.id), windowEnd: window.end }, now);
}
