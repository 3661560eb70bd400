import * as z from 'zod';

/**
 * The prompt template and its rendering: the shapes a stored prompt keeps and a render call sends. Below the
 * control plane and the gateway, which both render (the /render route, prompt completions);
 * shared/control-plane/prompts/schemas.ts builds the API's bodies on them and names them in docs/openapi.yaml.
 */

export const text = (max: number) => z.string().min(1).max(max);

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


export type PromptRenderBody = z.infer<typeof promptRenderBodySchema>;
export type RenderedPrompt = z.infer<typeof renderedPromptSchema>;
