import { PromptRepository } from '../../store/prompt-repository.js';
import { defineResource } from '../resource/define-resource.js';
import { readDocWithQuery } from '../versioned/versions-operation.js';
import { PromptService } from './prompt-service.js';
import { registerPromptVersionRoutes } from './routes.js';
import {
  promptCreateSchema,
  promptDeletedSchema,
  promptIdPathSchema,
  promptListQuerySchema,
  promptListSchema,
  promptSchema,
  promptUpdateSchema,
  promptVersionSelectorQuerySchema,
  promptWorkspaceQuerySchema,
  type PromptView,
} from './schemas.js';
import { PROMPT_ID } from '../../prompts/versions.js';

let built: PromptService | undefined;
// Built on the first request: repositories read settings, which the local runtime prepares after loading routes.
const prompts = () => (built ??= new PromptService());

/**
 * Prompts: `POST|GET /v1/prompts`, `GET|PATCH|DELETE /v1/prompts/{promptId}` from this definition; versions,
 * publish, labels and render are routes.ts (documented in openapi.ts). Admin keys may name another workspace
 * with `?workspace_id=`.
 */
export const promptResource = defineResource<PromptView, typeof promptCreateSchema, typeof promptUpdateSchema, unknown, PromptService>({
  kind: 'prompt',
  path: '/v1/prompts',
  idPattern: PROMPT_ID,
  names: { singular: 'prompt', plural: 'prompts', operation: 'Prompt', operations: 'Prompts' },
  tag: 'Prompts',
  scopes: { read: 'prompts:read', create: 'prompts:write', update: 'prompts:write', delete: 'prompts:write' },
  workspace: 'query',
  schemas: {
    create: promptCreateSchema,
    update: promptUpdateSchema,
    view: promptSchema,
    list: promptListSchema,
    deleted: promptDeletedSchema,
    idPath: promptIdPathSchema,
    listQuery: promptListQuerySchema,
    workspaceQuery: promptWorkspaceQuerySchema,
  },
  service: prompts,
  present: (view) => view,
  audit: {
    created: (view) => ({ name: view.name, version: 1 }),
    updated: (body, view) => ({ version: view.version?.version, published: body.publish === true, changed: Object.keys(body).sort() }),
    deleted: (view) => ({ name: view.name }),
  },
  // A workspace holding prompts is not empty: deleting it needs `force`.
  workspaceContent: { name: 'prompts', hasAny: async (workspaceId) => (await new PromptRepository().list(workspaceId, 1)).items.length > 0 },
  docs: {
    create: {
      summary: 'Create a prompt (version 1, published)',
      description: 'Template messages with {{variable}} placeholders (mustache, no HTML escaping), a model and default hyperparameters.',
      response: 'The prompt with its first version.',
    },
    list: { summary: 'List prompts', description: 'Newest first, without templates.' },
    get: readDocWithQuery(
      { summary: 'Get a prompt with one version', description: 'The published version unless version or label says otherwise.', errors: [400, 401, 403, 404] },
      promptVersionSelectorQuerySchema,
    ),
    update: {
      summary: 'Update a prompt: a new version',
      description: 'Every update writes version latest + 1 from the latest one with the given fields replaced; published only with publish: true.',
      response: 'The prompt with its new version.',
      errors: [400, 401, 403, 404, 409],
    },
    delete: { summary: 'Delete a prompt and all its versions' },
  },
  extraRoutes: (register, { scopeOf }) => registerPromptVersionRoutes(register, prompts, scopeOf),
});
