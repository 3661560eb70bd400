import * as z from 'zod';
import { badRequest } from '../http/errors.js';
import { MAX_ID_CHARS } from '../http/ids.js';

/**
 * The request bodies of the inbound dialects, as far as gw reads them. Fields gw does not read pass through (to a
 * native target) or are ignored (when translated), so the objects are loose. scripts/openapi documents these.
 */
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

/**
 * A turn of `messages`. The role is only checked to be a string: Anthropic adds roles (Claude Code 2.1 sends a
 * `system` turn inside `messages`), a native target judges them itself, and translation maps or refuses each one.
 */
const messagesMessage = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
});

export const messagesRequestSchema = z
  .looseObject({
    model: z.string().min(1).optional().meta({ description: 'Required unless a config target supplies it through override_params.' }),
    max_tokens: z.int().min(1),
    messages: z.array(messagesMessage).min(1),
    system: z.union([z.string(), z.array(textBlock)]).optional(),
    tools: z.array(z.looseObject({ name: z.string() })).optional(),
    tool_choice: z.looseObject({ type: z.string() }).optional(),
    thinking: z.looseObject({ type: z.string() }).optional(),
    stop_sequences: z.array(z.string()).optional(),
    temperature: z.number().optional(),
    top_p: z.number().optional(),
    metadata: z.looseObject({ user_id: z.string().optional() }).optional(),
    stream: z.boolean().optional(),
  })
  .meta({ description: 'An Anthropic Messages API request.' });

export const countTokensRequestSchema = messagesRequestSchema.omit({ max_tokens: true, stream: true }).meta({ description: 'An Anthropic count_tokens request.' });

const responsesInputItem = z.looseObject({ type: z.string().optional(), role: z.string().optional() });

export const responsesRequestSchema = z
  .looseObject({
    model: z.string().min(1).optional().meta({ description: 'Required unless a config target supplies it through override_params.' }),
    input: z.union([z.string(), z.array(responsesInputItem)]).optional().meta({ description: 'Required unless previous_response_id continues a conversation.' }),
    instructions: z.string().nullable().optional(),
    previous_response_id: z.string().max(MAX_ID_CHARS).nullable().optional(),
    store: z.boolean().optional().meta({ description: 'Keep the response (default true), for GET and previous_response_id.' }),
    stream: z.boolean().optional(),
    tools: z.array(z.looseObject({ type: z.string() })).optional(),
    tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.string() })]).optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    text: z.looseObject({ format: z.looseObject({ type: z.string() }).optional() }).nullable().optional(),
    reasoning: z.looseObject({ effort: z.string().nullable().optional() }).nullable().optional(),
    max_output_tokens: z.int().min(1).nullable().optional(),
    temperature: z.number().nullable().optional(),
    top_p: z.number().nullable().optional(),
    metadata: z.record(z.string(), z.string()).nullable().optional(),
    background: z.literal(false).nullable().optional().meta({ description: 'Background responses are not supported.' }),
  })
  .refine((body) => body.input !== undefined || typeof body.previous_response_id === 'string', { message: '`input` is required', path: ['input'] })
  .meta({ description: 'An OpenAI Responses API request.' });

export const responseIdParametersSchema = z.object({ responseId: z.string().max(MAX_ID_CHARS).meta({ description: 'A response id gw returned.' }) });
export const inputItemsQuerySchema = z.object({
  limit: z.string().regex(/^\d+$/).optional().meta({ description: '1 to 100, default 20.' }),
  order: z.enum(['asc', 'desc']).optional(),
  after: z.string().optional().meta({ description: 'An item id: the page starts after it.' }),
});

/** Checks a body against a dialect schema: a missing field is `missing_<field>`, anything else `invalid_request`. */
export function checkBody(schema: z.ZodType, body: unknown): void {
  const result = schema.safeParse(body);
  if (result.success) return;
  const issue = result.error.issues[0];
  const param = issue.path.map(String).join('.');
  const missing = issue.path.length === 1 && (body as Record<string, unknown>)[String(issue.path[0])] === undefined;
  throw badRequest(missing ? `missing_${param}` : 'invalid_request', param ? `\`${param}\`: ${issue.message}` : issue.message, param || null);
}
