import { workspaceListQuerySchema, workspaceQuerySchema } from '../query-schemas.js';
import { defineResource } from '../resource/define-resource.js';
import { versionsRoute } from '../versioned/versioned-routes.js';
import { readDocWithQuery } from '../versioned/versions-operation.js';
import {
  createConfigSchema,
  savedConfigDeletedSchema,
  savedConfigGetQuerySchema,
  savedConfigIdPathSchema,
  savedConfigListSchema,
  savedConfigResponseSchema,
  savedConfigVersionListSchema,
  updateConfigSchema,
} from './schemas.js';
import { ConfigService, presentConfig, presentConfigVersion } from './service.js';

const PATH = '/v1/configs';
let built: ConfigService | undefined;
// Built on the first request: repositories read settings, which the local runtime prepares after loading routes.
const configs = () => (built ??= new ConfigService());
const MASKED = 'Credentials are masked in every response; the gateway alone reads them back from the secret store.';

/**
 * Saved configs: `POST|GET /v1/configs`, `GET|PUT|DELETE /v1/configs/{id}` (`?version=N` reads an old
 * version), `GET /v1/configs/{id}/versions`. Every update is a new version; a request may pin `id@version`.
 * Admin keys may name another workspace of their organisation with `?workspace_id=`.
 */
export const configResource = defineResource({
  kind: 'config',
  path: PATH,
  names: { singular: 'saved config', plural: 'saved configs', operation: 'Config', operations: 'Configs' },
  tag: 'Configs',
  scopes: { read: 'configs:read', create: 'configs:write', update: 'configs:write', delete: 'configs:write' },
  workspace: 'query',
  updateMethods: ['PUT'],
  schemas: {
    create: createConfigSchema,
    update: updateConfigSchema,
    view: savedConfigResponseSchema,
    list: savedConfigListSchema,
    deleted: savedConfigDeletedSchema,
    idPath: savedConfigIdPathSchema,
    listQuery: workspaceListQuerySchema,
    workspaceQuery: workspaceQuerySchema,
  },
  service: configs,
  present: presentConfig,
  audit: {
    created: (record) => ({ name: record.name, version: 1 }),
    updated: (_body, record) => ({ version: record.version }),
  },
  // A workspace holding saved configs is not empty: deleting it needs `force`.
  workspaceContent: { name: 'configs', hasAny: async (workspaceId) => (await configs().list({ workspaceId }, { limit: 1 })).data.length > 0 },
  docs: {
    create: {
      summary: 'Save a config',
      description: `Checked exactly as the gateway checks an inline config (400 AB01xx naming the JSON path); a request then names it in x-gw-config. ${MASKED}`,
      response: 'The saved config, version 1.',
    },
    list: { summary: 'List saved configs' },
    get: readDocWithQuery({ summary: 'Get a saved config (or one of its versions)', description: `Another workspace’s config is a 404. ${MASKED}`, errors: [400, 401, 403, 404] }, savedConfigGetQuerySchema),
    update: {
      summary: 'Update a saved config (a new version)',
      description: 'The config is replaced as a whole; a credential sent back exactly as a read masked it keeps the stored one. Concurrent updates: 409.',
      response: 'The new version.',
      operationId: 'updateConfig',
      errors: [400, 401, 403, 404, 409],
    },
    delete: { summary: 'Delete a saved config, its versions and its stored credentials' },
  },
  ...versionsRoute({
    path: PATH,
    idPath: savedConfigIdPathSchema,
    tag: 'Configs',
    readScope: 'configs:read',
    versions: (at, id) => configs().versions(at, id),
    present: presentConfigVersion,
    docs: { list: savedConfigVersionListSchema, operationId: 'listConfigVersions', summary: 'List the versions of a saved config' },
  }),
});
