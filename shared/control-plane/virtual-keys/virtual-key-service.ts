import { forgetResolvedVirtualKey } from '../../gateway/virtual-key-target.js';
import { randomUUID } from 'node:crypto';
import { logger } from '../../observability/logger.js';
import { secretStore } from '../../store/secrets/secret-store-factory.js';
import type { SecretStore } from '../../store/secrets/secret-store.js';
import { deleteVirtualKeySecret, readVirtualKeySecret, writeVirtualKeySecret } from '../../store/secrets/virtual-key-secrets.js';
import { VirtualKeyRepository, type VirtualKeyRecord } from '../../store/virtual-key-repository.js';
import { notFound } from '../authorization.js';
import type { Page, PageRequest } from '../pagination.js';
import { toPage } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { refuseGatewayKeyCredentials, type StoredCredentialField } from '../gateway-key-credential.js';
import { refuseEndpointMoveWithoutCredential, type StoredEndpoints } from '../stored-endpoint-move.js';
import type { VirtualKeyCreate, VirtualKeyUpdate, VirtualKeyView } from './schemas.js';
import { SECRET_FIELD_NAMES, storedSecretFields } from './virtual-key-rules.js';
import { secretChanged, stateAfterUpdate, stateFromCreate, updateTouchesSecret } from './virtual-key-state.js';

/**
 * Virtual keys: metadata in DynamoDB, credential in the SecretStore. The credential only ever flows inward
 * (request body → store); nothing here returns or logs it.
 */
export class VirtualKeyService implements CrudService<VirtualKeyRecord, VirtualKeyCreate, VirtualKeyUpdate, undefined> {
  constructor(
    private readonly repository = new VirtualKeyRepository(),
    private readonly secrets: SecretStore = secretStore(),
  ) {}

  async create({ principal, workspaceId }: ResourceScope, body: VirtualKeyCreate): Promise<VirtualKeyRecord> {
    const organisationId = principal.organisationId;
    const state = stateFromCreate(body);
    await refuseGatewayKeyCredentials(secretFieldsOf(body));
    const now = new Date().toISOString();
    const record: VirtualKeyRecord = {
      id: randomUUID(),
      organisation_id: organisationId,
      workspace_id: workspaceId,
      name: body.name ?? `${state.provider} key`,
      provider: state.provider,
      secret_fields: storedSecretFields(state.secret),
      ...state.settings,
      created_at: now,
      updated_at: now,
    };
    // The secret first: a record without its secret would be a key that fails at request time.
    await writeVirtualKeySecret(this.secrets, workspaceId, record.id, state.secret);
    try {
      await this.repository.create(record);
    } catch (error) {
      await this.forgetSecret(workspaceId, record.id);
      throw error;
    }
    return record;
  }

  get({ workspaceId }: ResourceScope, virtualKeyId: string): Promise<VirtualKeyRecord> {
    return this.existing(workspaceId, virtualKeyId);
  }

  async list({ workspaceId }: ResourceScope, page: PageRequest): Promise<Page<VirtualKeyView>> {
    const result = await this.repository.list(workspaceId, page.limit, page.startKey);
    return toPage(result.items.map(toView), result.nextKey);
  }

  async update({ workspaceId }: ResourceScope, virtualKeyId: string, body: VirtualKeyUpdate): Promise<VirtualKeyRecord> {
    await refuseGatewayKeyCredentials(secretFieldsOf(body));
    const current = await this.existing(workspaceId, virtualKeyId);
    const currentSecret = updateTouchesSecret(body) ? ((await readVirtualKeySecret(this.secrets, workspaceId, virtualKeyId)) ?? {}) : undefined;
    const state = stateAfterUpdate(current, currentSecret, body);
    const sentAgain = typeof body.credential === 'string' || body.aws?.secret_access_key !== undefined || body.vertex?.service_account_json !== undefined;
    if (current.secret_fields?.length) refuseEndpointMoveWithoutCredential(endpointsOf(current), endpointsOf(state.settings), sentAgain);
    const record: VirtualKeyRecord = {
      id: current.id,
      organisation_id: current.organisation_id,
      workspace_id: current.workspace_id,
      name: body.name ?? current.name,
      provider: current.provider,
      secret_fields: currentSecret ? storedSecretFields(state.secret) : current.secret_fields,
      ...state.settings,
      created_at: current.created_at,
      updated_at: new Date().toISOString(),
    };
    if (currentSecret && secretChanged(currentSecret, state.secret)) {
      await writeVirtualKeySecret(this.secrets, workspaceId, virtualKeyId, state.secret);
    }
    if (!(await this.repository.replace(record))) {
      // Deleted while we were updating it: do not leave the freshly written credential behind.
      await this.forgetSecret(workspaceId, virtualKeyId);
      throw notFound('virtual key', virtualKeyId);
    }
    forgetResolvedVirtualKey(workspaceId, virtualKeyId);
    return record;
  }

  /** Removes the credential first, then the record, so a half-finished delete never leaves a usable secret. */
  async delete({ workspaceId }: ResourceScope, virtualKeyId: string): Promise<VirtualKeyRecord> {
    await this.existing(workspaceId, virtualKeyId);
    await deleteVirtualKeySecret(this.secrets, workspaceId, virtualKeyId);
    const deleted = await this.repository.delete(workspaceId, virtualKeyId);
    forgetResolvedVirtualKey(workspaceId, virtualKeyId);
    if (!deleted) throw notFound('virtual key', virtualKeyId);
    return deleted;
  }

  private async existing(workspaceId: string, virtualKeyId: string): Promise<VirtualKeyRecord> {
    const record = await this.repository.get(workspaceId, virtualKeyId);
    if (!record) throw notFound('virtual key', virtualKeyId);
    return record;
  }

  private async forgetSecret(workspaceId: string, virtualKeyId: string): Promise<void> {
    try {
      await deleteVirtualKeySecret(this.secrets, workspaceId, virtualKeyId);
    } catch (error) {
      logger.warn('could not remove the secret of a virtual key that was not saved', { virtual_key_id: virtualKeyId, error_name: (error as Error).name });
    }
  }
}

/** The secrets a create or update body would store, named as in the body (a gw key is refused in each). */
function secretFieldsOf(body: VirtualKeyCreate | VirtualKeyUpdate): StoredCredentialField[] {
  return [
    { param: 'credential', value: body.credential },
    { param: 'aws.access_key_id', value: body.aws?.access_key_id },
    { param: 'aws.secret_access_key', value: body.aws?.secret_access_key },
    { param: 'aws.session_token', value: body.aws?.session_token },
    { param: 'vertex.service_account_json', value: body.vertex?.service_account_json },
  ];
}

export function toView(record: VirtualKeyRecord): VirtualKeyView {
  const view: VirtualKeyView = {
    object: 'virtual_key',
    id: record.id,
    workspace_id: record.workspace_id,
    name: record.name,
    provider: record.provider,
    allowed_custom_hosts: record.allowed_custom_hosts ?? [],
    stored_secrets: record.secret_fields.map((field) => SECRET_FIELD_NAMES[field]),
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
  if (record.azure) view.azure = record.azure;
  if (record.vertex) view.vertex = record.vertex;
  if (record.aws) view.aws = record.aws;
  if (record.custom_host) view.custom_host = record.custom_host;
  return view;
}

/** The endpoints a virtual key's stored credential may be sent to. */
function endpointsOf(key: Pick<VirtualKeyRecord, 'custom_host' | 'allowed_custom_hosts' | 'azure'>): StoredEndpoints {
  return { customHost: key.custom_host, azureResourceName: key.azure?.resource_name, allowedCustomHosts: key.allowed_custom_hosts };
}
