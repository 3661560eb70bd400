import { jsonResponse } from '../../http/types.js';
import { audited } from '../audit.js';
import { requireScope } from '../authorization.js';
import { defineResource } from '../resource/define-resource.js';
import { resourceIdPathSchema } from '../resource/schema-helpers.js';
import { parseJsonBody, validate } from '../../http/json-body.js';
import type { ApiKeyResult } from './api-key-result.js';
import { presentApiKey } from './present.js';
import { apiKeyCreateSchema, apiKeyListQuerySchema, apiKeyRotateSchema, apiKeySchema, apiKeyUpdateSchema } from './schemas.js';
import { ApiKeyService } from './service.js';

const ITEM_PATH = '/v1/api-keys/{id}';
const present = ({ record, now }: ApiKeyResult) => presentApiKey(record, now);

/**
 * API keys: `POST|GET /v1/api-keys`, `GET|PATCH /v1/api-keys/{id}`, the action `POST /v1/api-keys/{id}/rotate` and,
 * by hand, `DELETE /v1/api-keys/{id}`, which revokes (audited `api_key.revoke`, answers the revoked key). A create
 * and a rotation answer the raw key once; no other response carries it. Scopes api_keys:read|list|write (from the
 * kind). Not documented in docs/openapi.yaml yet (its routes are listed there as x-gw-undocumented).
 */
export const apiKeyResource = defineResource({
  kind: 'api_key',
  path: '/v1/api-keys',
  names: { singular: 'API key', plural: 'API keys', operation: 'ApiKey', operations: 'ApiKeys' },
  tag: 'Api Keys',
  // The key's workspace comes from the body (create) or its record: the service resolves and checks it.
  workspace: 'organisation',
  undocumented: true,
  operations: ['create', 'list', 'get', 'update'],
  schemas: {
    create: apiKeyCreateSchema,
    update: apiKeyUpdateSchema,
    view: apiKeySchema,
    idPath: resourceIdPathSchema('id', 'The API key id.'),
    listQuery: apiKeyListQuerySchema,
  },
  service: () => new ApiKeyService(),
  present,
  presentCreated: (created) => ({ ...present(created), key: created.key }),
  listFilter: (query) => validate(apiKeyListQuerySchema, query),
  audit: {
    workspaceOf: ({ record }) => record.workspace_id,
    // The service says what changed (an expiry is resolved against the workspace's settings): never a secret.
    created: (created) => created.details ?? {},
    updated: (_body, updated) => updated.details ?? {},
  },
  docs: {},
  actions: [
    {
      verb: 'rotate',
      scope: 'api_keys:write',
      run: async (service, at, id, call) => {
        const rotated = await service.rotate(at, id, parseJsonBody(call.request, apiKeyRotateSchema));
        return { stored: rotated, details: rotated.details };
      },
      present: (rotated) => ({ ...present(rotated), key: rotated.key, previous_key_expires_at: rotated.previousKeyExpiresAt }),
      doc: { summary: 'Rotate an API key' },
    },
  ],
  extraRoutes: (register, { service, scopeOf }) => {
    // A key is revoked, never deleted: its own audit action, and the answer is the key (now revoked).
    register('DELETE', ITEM_PATH, (call) =>
      audited(call, { action: 'api_key.revoke', resource_type: 'api_key', resource_id: call.params.id }, async () => {
        requireScope(call.principal, 'api_keys:write');
        const revoked = await service().delete(await scopeOf(call), call.params.id);
        return { value: jsonResponse(200, present(revoked)), workspace_id: revoked.record.workspace_id, details: revoked.details };
      }),
    );
  },
});
