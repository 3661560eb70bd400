import { VirtualKeyRepository } from '../../store/virtual-key-repository.js';
import { defineResource } from '../resource/define-resource.js';
import {
  virtualKeyCreateSchema,
  virtualKeyDeletedSchema,
  virtualKeyIdPathSchema,
  virtualKeyListQuerySchema,
  virtualKeyListSchema,
  virtualKeySchema,
  virtualKeyUpdateSchema,
  virtualKeyWorkspaceQuerySchema,
} from './schemas.js';
import { toView, VirtualKeyService } from './virtual-key-service.js';

const NEVER_RETURNED = 'The credential goes to the secret store and is never returned by any API.';

/**
 * Virtual keys: `POST|GET /v1/virtual-keys`, `GET|PATCH|DELETE /v1/virtual-keys/{virtualKeyId}`. Admin keys may
 * name another workspace of their organisation with `?workspace_id=`. No response ever carries the credential, and
 * a body's JSON syntax error is not quoted back (it would quote the credential).
 */
export const virtualKeyResource = defineResource({
  kind: 'virtual_key',
  path: '/v1/virtual-keys',
  // Ids are UUIDs; anything else cannot exist, and must not reach a table key.
  idPattern: /^[A-Za-z0-9_-]{1,128}$/,
  names: { singular: 'virtual key', plural: 'virtual keys', operation: 'VirtualKey', operations: 'VirtualKeys' },
  tag: 'Virtual keys',
  scopes: { read: 'virtual_keys:read', create: 'virtual_keys:write', update: 'virtual_keys:write', delete: 'virtual_keys:write' },
  workspace: 'query',
  secretBearingBody: true,
  schemas: {
    create: virtualKeyCreateSchema,
    update: virtualKeyUpdateSchema,
    view: virtualKeySchema,
    list: virtualKeyListSchema,
    deleted: virtualKeyDeletedSchema,
    idPath: virtualKeyIdPathSchema,
    listQuery: virtualKeyListQuerySchema,
    workspaceQuery: virtualKeyWorkspaceQuerySchema,
  },
  service: () => new VirtualKeyService(),
  present: toView,
  audit: {
    created: (record) => ({ name: record.name, provider: record.provider }),
    // Updates record field names only (the default): the values of credential and secret fields never reach the log.
    deleted: (record) => ({ name: record.name, provider: record.provider }),
  },
  workspaceContent: { name: 'virtual_keys', hasAny: async (workspaceId) => (await new VirtualKeyRepository().list(workspaceId, 1)).items.length > 0 },
  errors: { secretStore: true },
  docs: {
    create: {
      summary: 'Store a provider credential as a virtual key',
      description: `Provider slug (or alias) from the registry, a credential, and optional provider settings (azure, vertex, aws, custom_host). ${NEVER_RETURNED}`,
      response: 'The virtual key (metadata only).',
    },
    list: { summary: 'List virtual keys', description: 'The workspace’s keys, newest first.' },
    get: { summary: 'Get a virtual key', description: `Another workspace’s key is a 404. ${NEVER_RETURNED}` },
    update: {
      summary: 'Update or rotate a virtual key',
      description: 'A settings block replaces the stored one (secret fields it omits are kept); null removes a block, the credential or the custom host. The provider cannot change.',
    },
    delete: { summary: 'Delete a virtual key and its stored credential' },
  },
});
