import { randomBytes } from 'node:crypto';
import { isRecord, numberField, recordField } from '../../providers/common/json-guards.js';
import type { OpenAIBody } from '../../providers/types.js';
import { callItem, toolOrigins } from './tools.js';

type Json = Record<string, unknown>;

export const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

/** Canonical usage → the Responses API's usage object. */
export function responsesUsageFrom(usage: unknown): Json {
  const record = isRecord(usage) ? usage : {};
  const input = numberField(record, 'prompt_tokens') ?? 0;
  const output = numberField(record, 'completion_tokens') ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: numberField(recordField(record, 'prompt_tokens_details') ?? {}, 'cached_tokens') ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: numberField(recordField(record, 'completion_tokens_details') ?? {}, 'reasoning_tokens') ?? 0 },
    total_tokens: numberField(record, 'total_tokens') ?? input + output,
  };
}

/** Responses usage → canonical usage (for metering a native response). */
export function canonicalUsageFromResponses(usage: unknown): Json | undefined {
  if (!isRecord(usage)) return undefined;
  const input = numberField(usage, 'input_tokens') ?? 0;
  const output = numberField(usage, 'output_tokens') ?? 0;
  const canonical: Json = { prompt_tokens: input, completion_tokens: output, total_tokens: numberField(usage, 'total_tokens') ?? input + output };
  const cached = numberField(recordField(usage, 'input_tokens_details') ?? {}, 'cached_tokens');
  if (cached !== undefined) canonical.prompt_tokens_details = { cached_tokens: cached };
  const reasoning = numberField(recordField(usage, 'output_tokens_details') ?? {}, 'reasoning_tokens');
  if (reasoning !== undefined) canonical.completion_tokens_details = { reasoning_tokens: reasoning };
  return canonical;
}

/** The request fields a Response object echoes back, with OpenAI's defaults. */
export function responseShell(body: OpenAIBody, id: string, model: unknown, status: string): Json {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: isRecord(body.metadata) ? body.metadata : {},
    model: typeof model === 'string' ? model : body.model,
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: isRecord(body.reasoning) ? { effort: body.reasoning.effort ?? null, summary: body.reasoning.summary ?? null } : { effort: null, summary: null },
    store: body.store !== false,
    temperature: body.temperature ?? 1,
    text: isRecord(body.text) ? body.text : { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: null,
    user: body.user ?? null,
  };
}

export function reasoningItem(text: string): Json {
  return { type: 'reasoning', id: newId('rs'), summary: [{ type: 'summary_text', text }] };
}

export function messageItem(id: string, text: string, status = 'completed', annotations: Json[] = []): Json {
  return { type: 'message', id, status, role: 'assistant', content: [{ type: 'output_text', text, annotations, logprobs: [] }] };
}

/** Chat's `url_citation` annotations (`{type, url_citation: {...}}`) → the Responses form (the fields inline). */
export function responsesAnnotations(annotations: unknown): Json[] {
  if (!Array.isArray(annotations)) return [];
  return annotations.filter(isRecord).map((annotation) => (isRecord(annotation.url_citation) ? { type: 'url_citation', ...annotation.url_citation } : annotation));
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status = 'completed'): Json {
  return { type: 'function_call', id, call_id: callId, name, arguments: args, status };
}

/** A canonical `chat.completion` → a Response: reasoning, message and function_call output items. */
export function canonicalToResponse(completion: Json, body: OpenAIBody): Json {
  const choice = Array.isArray(completion.choices) && isRecord(completion.choices[0]) ? completion.choices[0] : {};
  const reply = recordField(choice, 'message') ?? {};
  const output: Json[] = [];
  if (typeof reply.reasoning_content === 'string' && reply.reasoning_content !== '') output.push(reasoningItem(reply.reasoning_content));
  if (typeof reply.content === 'string' && reply.content !== '') output.push(messageItem(newId('msg'), reply.content, 'completed', responsesAnnotations(reply.annotations)));
  if (Array.isArray(reply.tool_calls)) {
    const origins = toolOrigins(body);
    for (const call of reply.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      output.push(callItem(origins, newId('fc'), String(call.id), String(call.function.name), String(call.function.arguments ?? '')));
    }
  }
  const incomplete = choice.finish_reason === 'length';
  return {
    ...responseShell(body, newId('resp'), completion.model, incomplete ? 'incomplete' : 'completed'),
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    output,
    usage: responsesUsageFrom(completion.usage),
  };
}
