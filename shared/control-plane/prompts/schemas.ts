import * as z from 'zod';
import {
  LABEL_PATTERN,
  promptHyperparametersSchema,
  promptMessageSchema,
  promptTemplateFieldsShape,
  renderedPromptSchema,
  text,
} from '../../prompts/schemas.js';
import { workspaceListQuerySchema, workspaceQueryField, workspaceQuerySchema } from '../query-schemas.js';

// The template and render shapes live in shared/prompts/ (the gateway renders too); exported here as well, so
// docs/openapi.yaml names them with this resource's components.
export {
  BUILT_IN_LABELS,
  LABEL_PATTERN,
  promptHyperparametersSchema,
  promptMessageSchema,
  promptParameterShape,
  promptRenderBodySchema,
  promptTemplateFieldsShape,
  renderedPromptSchema,
  type PromptRenderBody,
  type RenderedPrompt,
} from '../../prompts/schemas.js';

/**
 * Bodies and responses of /v1/prompts. The schemas are the single source of truth (types are inferred, and
 * docs/openapi.yaml is generated with z.toJSONSchema), so they carry no transforms.
 */

export const promptCreateSchema = z
  .strictObject({
    name: text(255),
    description: z.string().max(2000).optional(),
    ...promptTemplateFieldsShape,
    version_description: z.string().max(2000).optional().meta({ description: 'A note stored with version 1.' }),
  })
  .meta({ id: 'PromptCreate' });

/** Every update makes a new version from the latest one; fields left out are carried over. */
export const promptUpdateSchema = z
  .strictObject({
    name: text(255).optional(),
    description: z.string().max(2000).optional(),
    messages: promptTemplateFieldsShape.messages.optional(),
    model: text(256).nullable().optional().meta({ description: 'null removes the model from the template.' }),
    hyperparameters: promptHyperparametersSchema.optional().meta({ description: 'Replaces the stored defaults.' }),
    version_description: z.string().max(2000).optional(),
    publish: z.boolean().optional().meta({ description: 'Publish the new version at once (default false).' }),
  })
  .refine((body) => Object.keys(body).some((key) => key !== 'publish' && key !== 'version_description'), 'send at least one field to change')
  .meta({ id: 'PromptUpdate' });

export const promptLabelSchema = z.strictObject({ version: z.int().min(1) }).meta({ id: 'PromptLabelAssign' });

export const promptVersionSchema = z
  .object({
    object: z.literal('prompt_version'),
    prompt_id: z.string(),
    version: z.int(),
    description: z.string().optional(),
    messages: z.array(promptMessageSchema),
    model: z.string().optional(),
    hyperparameters: promptHyperparametersSchema,
    created_at: z.string(),
  })
  .meta({ id: 'PromptVersion' });

export const promptSchema = z
  .object({
    object: z.literal('prompt'),
    id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    latest_version: z.int(),
    published_version: z.int(),
    labels: z.record(z.string(), z.int()),
    created_at: z.string(),
    updated_at: z.string(),
    version: promptVersionSchema.optional().meta({ description: 'The selected version (the published one unless ?version= or ?label= says otherwise).' }),
  })
  .meta({ id: 'Prompt' });

export const promptRenderResponseSchema = z
  .object({ success: z.literal(true), data: renderedPromptSchema })
  .meta({ id: 'PromptRenderResponse' });

export const promptDeletedSchema = z
  .object({ object: z.literal('prompt'), id: z.string(), deleted: z.literal(true) })
  .meta({ id: 'PromptDeleted' });

/** Documentation of the route parameters (the routes read them by hand: see routes.ts, versions.ts, pagination.ts). */
export const promptWorkspaceQuerySchema = workspaceQuerySchema;

export const promptListQuerySchema = workspaceListQuerySchema;

export const promptVersionSelectorQuerySchema = z.object({
  version: z.int().min(1).optional().meta({ description: 'A version number.' }),
  label: z.string().regex(LABEL_PATTERN).optional().meta({ description: 'A label, or the built-in latest / published. Not together with version.' }),
  workspace_id: workspaceQueryField,
});

export const promptIdPathSchema = z.object({ promptId: z.string().meta({ description: 'The prompt id.' }) });
export const promptVersionPathSchema = promptIdPathSchema.extend({ version: z.int().min(1) });
export const promptLabelPathSchema = promptIdPathSchema.extend({ label: z.string().regex(LABEL_PATTERN) });

const pageFields = { object: z.literal('list'), has_more: z.boolean(), next_cursor: z.string().nullable() };
export const promptListSchema = z.object({ ...pageFields, data: z.array(promptSchema) }).meta({ id: 'PromptList' });
export const promptVersionListSchema = z.object({ ...pageFields, data: z.array(promptVersionSchema) }).meta({ id: 'PromptVersionList' });

export type PromptCreate = z.infer<typeof promptCreateSchema>;
export type PromptUpdate = z.infer<typeof promptUpdateSchema>;
export type PromptView = z.infer<typeof promptSchema>;
export type PromptVersionView = z.infer<typeof promptVersionSchema>;
