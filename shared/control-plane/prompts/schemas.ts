import * as z from 'zod';
import { workspaceListQuerySchema, workspaceQueryField, workspaceQuerySchema } from '../query-schemas.js';

/**
 * Bodies and responses of /v1/prompts. The schemas are the single source of truth (types are inferred, and
 * docs/openapi.yaml is generated with z.toJSONSchema), so they carry no transforms.
 */

const text = (max: number) => z.string().min(1).max(max);

/** One chat message. In a template every string inside it may hold `{{variable}}` placeholders. */
export const promptMessageSchema = z
  .looseObject({
    role: text(64).meta({ description: 'system, user, assistant, developer, tool …' }),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown())), z.null()]),
    name: text(256).optional(),
  })
  .meta({ id: 'PromptMessage' });

const toolSchema = z.looseObject({
  type: text(64),
  function: z.looseObject({
    name: text(256),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().optional(),
  }),
});

const functionSchema = z.looseObject({
  name: text(256),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The parameters of the spec's rendered-prompt table besides `messages` and `model`: the defaults a prompt
 * stores, and what a render call may set at the root of its body.
 */
export const promptParameterShape = {
  frequency_penalty: z.number().min(-2).max(2).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  logit_bias: z.record(z.string(), z.number()).nullable().optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.int().min(0).max(20).optional(),
  max_tokens: z.int().min(1).optional(),
  n: z.int().min(1).max(128).optional(),
  response_format: z.looseObject({ type: text(64) }).optional(),
  seed: z.int().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(16)]).optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({}).nullable().optional(),
  thinking: z.looseObject({ type: text(64), budget_tokens: z.int().min(0).optional() }).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: z.union([z.string(), z.looseObject({})]).optional(),
  parallel_tool_calls: z.boolean().optional(),
  user: z.string().max(256).optional(),
  function_call: z.union([z.string(), z.looseObject({})]).optional(),
  functions: z.array(functionSchema).optional(),
};

export const promptHyperparametersSchema = z
  .strictObject(promptParameterShape)
  .meta({ id: 'PromptHyperparameters', description: 'Default parameters of the prompt; a render call may override each at its body root.' });

/** The spec's rendered prompt (`data` of the render response): a chat-completions body, ready to post. */
export const renderedPromptSchema = z
  .strictObject({
    messages: z.array(promptMessageSchema),
    model: text(256).optional(),
    ...promptParameterShape,
  })
  .meta({ id: 'RenderedPrompt' });

export const promptTemplateFieldsShape = {
  messages: z.array(promptMessageSchema).min(1).max(500).meta({ description: 'Template messages; strings may hold {{variable}} placeholders (mustache).' }),
  model: text(256).optional(),
  hyperparameters: promptHyperparametersSchema.optional(),
};

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

/** Labels name versions; `latest` and `published` are built in and cannot be assigned. */
export const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
export const BUILT_IN_LABELS = ['latest', 'published'] as const;

/**
 * The body of POST /v1/prompts/{promptId}/render (and /completions): `variables`, plus any rendered-prompt field
 * at the root. Unknown keys are refused; `hyperparameters` gets its own message (see render-body.ts).
 */
export const promptRenderBodySchema = z
  .strictObject({
    variables: z.record(z.string(), z.unknown()).meta({ description: 'Values for the {{variable}} placeholders.' }),
    messages: z.array(promptMessageSchema).optional().meta({ description: 'Appended after the template messages (not rendered), e.g. conversation history.' }),
    model: text(256).optional(),
    ...promptParameterShape,
  })
  .meta({ id: 'PromptRenderRequest' });

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
export type PromptRenderBody = z.infer<typeof promptRenderBodySchema>;
export type RenderedPrompt = z.infer<typeof renderedPromptSchema>;
export type PromptView = z.infer<typeof promptSchema>;
export type PromptVersionView = z.infer<typeof promptVersionSchema>;
