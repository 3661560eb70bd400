import { badRequest } from '../../http/errors.js';
import { contentParts } from '../common/content.js';
import { isRecord } from '../common/json-guards.js';
import { copyRenamedParams } from '../common/renamed-params.js';
import type { OpenAIMessage } from '../common/openai-types.js';
import { paramsAskingForMore, refuseOrRecordDrop, type UnsupportedParamChecks } from '../common/unsupported-params.js';
import type { AdapterInput } from '../types.js';

export const PROVIDER_NAME = 'Replicate';
export const REPLICATE_API_BASE_URL = 'https://api.replicate.com/v1';

/**
 * Replicate's language models take a prompt (and a system prompt) as a prediction's `input`, not a message list;
 * they have no tools, structured output, several choices or log probabilities.
 */
const UNSUPPORTED: UnsupportedParamChecks = {
  tools: (value) => Array.isArray(value) && value.length === 0,
  tool_choice: (value) => value === 'none',
  functions: () => false,
  function_call: () => false,
  response_format: (value) => isRecord(value) && value.type === 'text',
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  top_logprobs: () => false,
  logit_bias: (value) => isRecord(value) && Object.keys(value).length === 0,
  audio: () => false,
  modalities: (value) => Array.isArray(value) && value.every((modality) => modality === 'text'),
  reasoning_effort: () => false,
};

/** OpenAI sampling names → the input names Replicate's official language models use. */
const INPUT_NAMES: Record<string, string> = {
  max_tokens: 'max_tokens',
  max_completion_tokens: 'max_tokens',
  temperature: 'temperature',
  top_p: 'top_p',
  seed: 'seed',
  presence_penalty: 'presence_penalty',
  frequency_penalty: 'frequency_penalty',
};

/** `owner/name` (an official model: its own predictions route) or `owner/name:version` (a pinned version). */
export function modelRoute(model: unknown): { path: string; version?: string } {
  const match = typeof model === 'string' ? /^([a-z0-9][\w.-]*)\/([a-z0-9][\w.-]*)(?::([a-f0-9]{64}))?$/i.exec(model) : null;
  if (!match) throw badRequest('invalid_request', '`model` must be a Replicate model, `owner/name` or `owner/name:<64-hex version>`', 'model');
  return match[3] ? { path: 'predictions', version: match[3] } : { path: `models/${match[1]}/${match[2]}/predictions` };
}

/** OpenAI chat body → a prediction body: `{input: {prompt, system_prompt, …}}` (and `version` for a pinned model). */
export function toPredictionBody(input: AdapterInput): Record<string, unknown> {
  const source = input.body;
  refuseOrRecordDrop(input, PROVIDER_NAME, paramsAskingForMore(source, UNSUPPORTED));
  const { system, prompt } = promptOf(source.messages);
  const prediction: Record<string, unknown> = { prompt };
  if (system) prediction.system_prompt = system;
  copyRenamedParams(source, prediction, INPUT_NAMES);
  if (source.stop !== undefined && source.stop !== null) prediction.stop_sequences = (Array.isArray(source.stop) ? source.stop : [source.stop]).join(',');
  const { version } = modelRoute(source.model);
  return version ? { version, input: prediction } : { input: prediction };
}

/**
 * System and developer messages become `system_prompt`; one user turn is the prompt as it is; a longer
 * conversation is written out as a transcript ending with the assistant's turn, since the model takes one prompt.
 */
function promptOf(messages: unknown): { system: string; prompt: string } {
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest('invalid_request', '`messages` must be a non-empty array', 'messages');
  const system: string[] = [];
  const turns: Array<{ role: string; text: string }> = [];
  (messages as OpenAIMessage[]).forEach((message, index) => {
    const text = textOf(message, index);
    if (message.role === 'system' || message.role === 'developer') system.push(text);
    else if (message.role === 'user' || message.role === 'assistant') turns.push({ role: message.role, text });
    else throw badRequest('unsupported_parameter', `${PROVIDER_NAME} models take no ${String(message.role)} messages (no tools)`, `messages[${index}].role`);
  });
  if (turns.length === 0) throw badRequest('invalid_request', '`messages` needs a user message', 'messages');
  const prompt = turns.length === 1 && turns[0].role === 'user' ? turns[0].text : `${turns.map((turn) => `${turn.role === 'user' ? 'User' : 'Assistant'}: ${turn.text}`).join('\n\n')}\n\nAssistant:`;
  return { system: system.join('\n\n'), prompt };
}

function textOf(message: OpenAIMessage, index: number): string {
  const parts = contentParts(message.content);
  const other = parts.find((part) => part.type !== 'text');
  if (other) throw badRequest('unsupported_parameter', `${PROVIDER_NAME} chat takes text only through gw`, `messages[${index}].content`);
  return parts.map((part) => String((part as { text?: unknown }).text ?? '')).join('');
}
