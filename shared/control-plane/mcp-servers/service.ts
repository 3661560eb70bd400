import { randomUUID } from 'node:crypto';
import { logger } from '../../observability/logger.js';
import { deleteMcpServerSecret, writeMcpServerSecret } from '../../mcp/credentials.js';
import { findMcpServer } from '../../mcp/lookup.js';
import { checkedMcpServerUrl } from '../../mcp/outbound.js';
import { syncedRecord } from '../../mcp/sync.js';
import { isToolAllowed } from '../../mcp/tool-rules.js';
import type { McpServerRecord, McpServerSecret } from '../../mcp/types.js';
import { McpServerRepository } from '../../store/mcp-server-repository.js';
import { secretStore } from '../../store/secrets/secret-store-factory.js';
import type { SecretStore } from '../../store/secrets/secret-store.js';
import { notFound } from '../authorization.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { withSlugConflict } from '../resource/slugs.js';
import type { McpServerAuth, McpServerCreate, McpServerMetadataView, McpServerUpdate, McpServerView } from './schemas.js';
import { refuseGatewayKeyCredentials, type StoredCredentialField } from '../gateway-key-credential.js';
import { refuseEndpointMoveWithoutCredential } from '../stored-endpoint-move.js';

/**
 * MCP servers: the record (with the cached handshake) in DynamoDB, the credential in the SecretStore. A create or
 * an update runs the handshake at once, so the answer already says whether gw can reach the server.
 */
export class McpServerService implements CrudService<McpServerRecord, McpServerCreate, McpServerUpdate, undefined> {
  constructor(
    private readonly repository = new McpServerRepository(),
    private readonly secrets: SecretStore = secretStore(),
  ) {}

  async create({ principal, workspaceId }: ResourceScope, body: McpServerCreate): Promise<McpServerRecord> {
    const organisationId = principal.organisationId;
    const url = checkedMcpServerUrl(body.url);
    const auth = body.auth ?? { type: 'none' };
    await refuseGatewayKeyCredentials(authCredentialFields(auth));
    const now = new Date().toISOString();
    const record: McpServerRecord = {
      id: randomUUID(),
      organisation_id: organisationId,
      workspace_id: workspaceId,
      name: body.name,
      slug: body.slug ?? slugFrom(body.name),
      url,
      ...authFields(auth),
      tools: body.tools ?? {},
      sync_status: 'pending',
      created_at: now,
      updated_at: now,
    };
    const secret = secretOf(auth);
    // The secret first: a record without its secret would be a server gw cannot authenticate to.
    if (secret) await writeMcpServerSecret(this.secrets, workspaceId, record.id, secret);
    try {
      await withSlugConflict(record.slug, () => this.repository.create(record), slugTaken);
    } catch (error) {
      if (secret) await this.forgetSecret(workspaceId, record.id);
      throw error;
    }
    return this.sync(record, secret);
  }

  get({ workspaceId }: ResourceScope, idOrSlug: string): Promise<McpServerRecord> {
    return this.existing(workspaceId, idOrSlug);
  }

  async list({ workspaceId }: ResourceScope, page: PageRequest): Promise<Page<McpServerView>> {
    const result = await this.repository.list(workspaceId, page.limit, page.startKey);
    return toPage(result.items.map(toView), result.nextKey);
  }

  async update({ workspaceId }: ResourceScope, idOrSlug: string, body: McpServerUpdate): Promise<McpServerRecord> {
    if (body.auth) await refuseGatewayKeyCredentials(authCredentialFields(body.auth));
    const current = await this.existing(workspaceId, idOrSlug);
    const record: McpServerRecord = {
      ...current,
      name: body.name ?? current.name,
      slug: body.slug ?? current.slug,
      url: body.url === undefined ? current.url : checkedMcpServerUrl(body.url),
      tools: body.tools === undefined ? current.tools : (body.tools ?? {}),
      updated_at: new Date().toISOString(),
    };
    // The server's stored token follows its URL: a new URL needs the token again (stored-endpoint-move.ts).
    if (body.auth === undefined && current.auth_type !== undefined && current.auth_type !== 'none') {
      refuseEndpointMoveWithoutCredential({ customHost: current.url, hostParam: 'url' }, { customHost: record.url, hostParam: 'url' }, false);
    }
    const secret = body.auth ? secretOf(body.auth) : undefined;
    if (body.auth) {
      delete record.auth_header_name;
      Object.assign(record, authFields(body.auth));
      if (secret) await writeMcpServerSecret(this.secrets, workspaceId, record.id, secret);
      else await deleteMcpServerSecret(this.secrets, workspaceId, record.id);
    }
    const replaced = await withSlugConflict(record.slug, () => this.repository.replace(record, current.slug), slugTaken);
    if (!replaced) {
      if (body.auth) await this.forgetSecret(workspaceId, record.id);
      throw notFound('MCP server', idOrSlug);
    }
    // Where the server is or how gw signs in changed: what it offers may have too.
    const resync = body.url !== undefined || body.auth !== undefined || current.sync_status !== 'synced';
    return resync ? this.sync(record, secret) : record;
  }

  /** Removes the credential first, then the record, so a half-finished delete never leaves a usable secret. */
  async delete({ workspaceId }: ResourceScope, idOrSlug: string): Promise<McpServerRecord> {
    const current = await this.existing(workspaceId, idOrSlug);
    await deleteMcpServerSecret(this.secrets, workspaceId, current.id);
    const deleted = await this.repository.delete(workspaceId, current.id);
    if (!deleted) throw notFound('MCP server', idOrSlug);
    return deleted;
  }

  /** The cached handshake; a new one when asked (`refresh`) or when none succeeded or ran yet. */
  async metadata(workspaceId: string, idOrSlug: string, refresh: boolean): Promise<McpServerMetadataView> {
    let record = await this.existing(workspaceId, idOrSlug);
    if (refresh || record.sync_status === 'pending') record = await this.sync(record);
    const metadata = record.metadata;
    return {
      object: 'mcp_server_metadata',
      id: record.id,
      ...describe(record),
      website_url: metadata?.website_url,
      instructions: metadata?.instructions,
      capabilities: metadata?.capabilities,
      tools: (metadata?.tools ?? []).map((tool) => ({ ...tool, allowed: isToolAllowed(record.tools, tool.name) })),
    };
  }

  private async sync(record: McpServerRecord, knownSecret?: McpServerSecret): Promise<McpServerRecord> {
    const synced = await syncedRecord(record, this.secrets, knownSecret);
    // Saved only while the server still exists; a concurrent delete wins.
    if (!(await this.repository.replace(synced, record.slug))) throw notFound('MCP server', record.id);
    return synced;
  }

  private async existing(workspaceId: string, idOrSlug: string): Promise<McpServerRecord> {
    const record = await findMcpServer(workspaceId, idOrSlug, this.repository);
    if (!record) throw notFound('MCP server', idOrSlug.slice(0, 128));
    return record;
  }

  private async forgetSecret(workspaceId: string, serverId: string): Promise<void> {
    try {
      await deleteMcpServerSecret(this.secrets, workspaceId, serverId);
    } catch (error) {
      logger.warn('could not remove the secret of an MCP server that was not saved', { mcp_server_id: serverId, error_name: (error as Error).name });
    }
  }
}

function authFields(auth: McpServerAuth): Pick<McpServerRecord, 'auth_type' | 'auth_header_name'> {
  return auth.type === 'header' ? { auth_type: 'header', auth_header_name: auth.name.toLowerCase() } : { auth_type: auth.type };
}

/** The credential an auth block would store, named as in the body. */
function authCredentialFields(auth: McpServerAuth): StoredCredentialField[] {
  if (auth.type === 'bearer') return [{ param: 'auth.token', value: auth.token }];
  if (auth.type === 'header') return [{ param: 'auth.value', value: auth.value }];
  return [];
}

function secretOf(auth: McpServerAuth): McpServerSecret | undefined {
  if (auth.type === 'bearer') return { value: auth.token };
  if (auth.type === 'header') return { value: auth.value };
  return undefined;
}

/** A slug from a name: lower-cased, runs of other characters turned into `-`. */
export function slugFrom(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 63);
  return slug === '' || /^[0-9a-f]{8}-/.test(slug) ? `mcp-${randomUUID().slice(0, 8)}` : slug;
}

const slugTaken = (slug: string) => `Another MCP server of this workspace has the slug '${slug}'`;

function describe(record: McpServerRecord) {
  const metadata = record.metadata;
  return {
    title: metadata?.title,
    description: metadata?.description,
    icons: metadata?.icons,
    server_name: metadata?.server_name,
    server_version: metadata?.server_version,
    protocol_version: metadata?.protocol_version,
    sync_status: record.sync_status,
    synced_at: record.synced_at,
    error: record.sync_status === 'failed' ? record.sync_error : undefined,
  };
}

export function toView(record: McpServerRecord): McpServerView {
  const view: McpServerView = {
    object: 'mcp_server',
    id: record.id,
    workspace_id: record.workspace_id,
    name: record.name,
    slug: record.slug,
    url: record.url,
    auth: record.auth_type === 'header' ? { type: 'header', name: record.auth_header_name } : { type: record.auth_type },
    tools: record.tools,
    gateway_path: `/v1/mcp/${record.slug}`,
    ...describe(record),
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
  return JSON.parse(JSON.stringify(view)) as McpServerView;
}
