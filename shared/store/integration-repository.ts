import type { SecretStore } from './secrets/secret-store.js';
import { organisationOwner, SluggedRecordRepository, workspaceOwner } from './slugged-record-repository.js';

/** Key → value labels on integrations and providers, filtered with `?tags=key:value`. */
export type Tags = Record<string, string>;

/**
 * An organisation's provider credential and its settings. The credential itself lives only in the SecretStore
 * (`integrations/<organisation>/<id>`); this record keeps its last four characters for people to recognise it.
 * `shared_with_workspaces` says which workspaces may enable it as a provider: `all`, or a list of workspace ids.
 */
export interface IntegrationRecord {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  /** Canonical provider slug from the registry. */
  provider: string;
  description?: string;
  custom_host?: string;
  /** Origins besides custom_host a request may send the credential to (shared/gateway/stored-credential-host.ts). */
  allowed_custom_hosts?: string[];
  tags: Tags;
  shared_with_workspaces: 'all' | string[];
  credential_masked: string | null;
  /** Bedrock's batch storage (provider bedrock): bucket, prefix, role (docs/batches.md). */
  aws?: IntegrationBatchSettings;
  /** Vertex AI's batch storage (provider vertex-ai): bucket, prefix. */
  vertex?: IntegrationBatchSettings;
  created_at: string;
  updated_at: string;
}

/** Where a translated batch through this integration keeps its files (shared/control-plane/integrations/batch-settings.ts). */
export interface IntegrationBatchSettings {
  batch_bucket?: string;
  batch_prefix?: string;
  batch_role_arn?: string;
}

/** A workspace's enablement of an integration, with its own limits. Selected with `x-gw-provider: @<slug>`. */
export interface ProviderRecord {
  id: string;
  organisation_id: string;
  workspace_id: string;
  integration_id: string;
  name: string;
  slug: string;
  description?: string;
  /** Models the workspace may call through it; empty means every model. */
  models: string[];
  /** USD the provider may spend (charged from priced usage), per period. */
  budget?: { limit_usd: number; period: 'none' | 'weekly' | 'monthly' };
  rate_limits: Array<{ type: 'requests' | 'tokens'; unit: 'rpm' | 'rph' | 'rpd'; value: number }>;
  enabled: boolean;
  tags: Tags;
  /** `organisation` when an organisation admin key set its limits: a workspace key may then only tighten them. */
  set_by?: 'organisation' | 'workspace';
  created_at: string;
  updated_at: string;
}

export function integrationRepository() {
  const records = new SluggedRecordRepository<IntegrationRecord>('INTEGRATION');
  return {
    create: (record: IntegrationRecord) => records.create(organisationOwner(record.organisation_id), record),
    get: (organisationId: string, id: string) => records.get(organisationOwner(organisationId), id),
    getBySlug: (organisationId: string, slug: string) => records.getBySlug(organisationOwner(organisationId), slug),
    list: (organisationId: string, limit: number, startKey?: Record<string, unknown>, keep?: (record: IntegrationRecord) => boolean) =>
      records.list(organisationOwner(organisationId), limit, startKey, keep),
    all: (organisationId: string) => records.all(organisationOwner(organisationId)),
    replace: (previous: IntegrationRecord, next: IntegrationRecord) => records.replace(organisationOwner(previous.organisation_id), previous, next),
    delete: (organisationId: string, id: string) => records.delete(organisationOwner(organisationId), id),
  };
}

export function providerRepository() {
  const records = new SluggedRecordRepository<ProviderRecord>('PROVIDER');
  return {
    create: (record: ProviderRecord) => records.create(workspaceOwner(record.workspace_id), record),
    get: (workspaceId: string, id: string) => records.get(workspaceOwner(workspaceId), id),
    getBySlug: (workspaceId: string, slug: string) => records.getBySlug(workspaceOwner(workspaceId), slug),
    list: (workspaceId: string, limit: number, startKey?: Record<string, unknown>, keep?: (record: ProviderRecord) => boolean) =>
      records.list(workspaceOwner(workspaceId), limit, startKey, keep),
    all: (workspaceId: string) => records.all(workspaceOwner(workspaceId)),
    replace: (previous: ProviderRecord, next: ProviderRecord) => records.replace(workspaceOwner(previous.workspace_id), previous, next),
    delete: (workspaceId: string, id: string) => records.delete(workspaceOwner(workspaceId), id),
  };
}

/** Whether a workspace may use the integration. */
export function integrationSharedWith(record: IntegrationRecord, workspaceId: string): boolean {
  return record.shared_with_workspaces === 'all' || record.shared_with_workspaces.includes(workspaceId);
}

/** The integration's secret, one JSON document in the SecretStore under a relative name. */
export interface IntegrationSecret {
  api_key?: string;
}

const secretName = (organisationId: string, integrationId: string) => `integrations/${organisationId}/${integrationId}`;

export async function readIntegrationSecret(store: SecretStore, organisationId: string, integrationId: string): Promise<IntegrationSecret | undefined> {
  const text = await store.get(secretName(organisationId, integrationId));
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as IntegrationSecret;
  } catch {
    return undefined;
  }
}

export function writeIntegrationSecret(store: SecretStore, organisationId: string, integrationId: string, secret: IntegrationSecret): Promise<void> {
  return store.put(secretName(organisationId, integrationId), JSON.stringify(secret));
}

export function deleteIntegrationSecret(store: SecretStore, organisationId: string, integrationId: string): Promise<void> {
  return store.delete(secretName(organisationId, integrationId));
}
