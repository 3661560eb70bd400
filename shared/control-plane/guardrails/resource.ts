import { workspaceListQuerySchema, workspaceQuerySchema } from '../query-schemas.js';
import { defineResource } from '../resource/define-resource.js';
import { versionsRoute } from '../versioned/versioned-routes.js';
import { readDocWithQuery } from '../versioned/versions-operation.js';
import {
  guardrailCreateSchema,
  guardrailDeletedSchema,
  guardrailGetQuerySchema,
  guardrailIdPathSchema,
  guardrailListSchema,
  guardrailSchema,
  guardrailUpdateSchema,
  guardrailVersionListSchema,
} from './schemas.js';
import { GuardrailService, presentGuardrail, presentGuardrailVersion } from './service.js';

const PATH = '/v1/guardrails';
let built: GuardrailService | undefined;
// Built on the first request: repositories read settings, which the local runtime prepares after loading routes.
const guardrails = () => (built ??= new GuardrailService());

/**
 * Guardrails (docs/guardrails.md): `POST|GET /v1/guardrails`, `GET|PUT|DELETE /v1/guardrails/{guardrailId}`
 * (`?version=N` reads an old version; every update is a new one), `GET /v1/guardrails/{guardrailId}/versions`. All
 * answer 404 `feature_disabled` while GUARDRAILS_ENABLED=OFF. Admin keys may name another workspace of their
 * organisation with `?workspace_id=`.
 */
export const guardrailResource = defineResource({
  kind: 'guardrail',
  path: PATH,
  names: { singular: 'guardrail', plural: 'guardrails', operation: 'Guardrail', operations: 'Guardrails' },
  tag: 'Guardrails',
  scopes: { read: 'guardrails:read', create: 'guardrails:write', update: 'guardrails:write', delete: 'guardrails:write' },
  workspace: 'query',
  featureFlag: 'GUARDRAILS_ENABLED',
  updateMethods: ['PUT'],
  schemas: {
    create: guardrailCreateSchema,
    update: guardrailUpdateSchema,
    view: guardrailSchema,
    list: guardrailListSchema,
    deleted: guardrailDeletedSchema,
    idPath: guardrailIdPathSchema,
    listQuery: workspaceListQuerySchema,
    workspaceQuery: workspaceQuerySchema,
  },
  service: guardrails,
  present: presentGuardrail,
  audit: {
    created: (record) => ({ name: record.name, type: record.type, version: 1 }),
    updated: (_body, record) => ({ version: record.version, type: record.type }),
  },
  workspaceContent: { name: 'guardrails', hasAny: async (workspaceId) => (await guardrails().list({ workspaceId }, { limit: 1 })).data.length > 0 },
  docs: {
    create: {
      summary: 'Create a guardrail',
      description: 'A request_params_check, add_prefix or allowed_request_types rule (docs/guardrails.md). Name its id in a config’s input_guardrails or the workspace’s default_guardrails.',
      response: 'The guardrail, version 1.',
    },
    list: { summary: 'List guardrails' },
    get: readDocWithQuery({ summary: 'Get a guardrail (or one of its versions)', description: 'Another workspace’s guardrail is a 404.', errors: [400, 401, 403, 404] }, guardrailGetQuerySchema),
    update: {
      summary: 'Update a guardrail (a new version)',
      description: '`type` defaults to the current one and `config` is checked against it. Concurrent updates: 409.',
      response: 'The new version.',
      operationId: 'updateGuardrail',
      errors: [400, 401, 403, 404, 409],
    },
    delete: {
      summary: 'Delete a guardrail and its versions',
      description: '409 guardrail_in_use while the workspace default_guardrails or a saved config name it.',
      errors: [401, 403, 404, 409],
    },
  },
  ...versionsRoute({
    path: PATH,
    idPath: guardrailIdPathSchema,
    tag: 'Guardrails',
    featureFlag: 'GUARDRAILS_ENABLED',
    readScope: 'guardrails:read',
    versions: (at, id) => guardrails().versions(at, id),
    present: presentGuardrailVersion,
    docs: { list: guardrailVersionListSchema, operationId: 'listGuardrailVersions', summary: 'List the versions of a guardrail' },
  }),
});
