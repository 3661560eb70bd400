import { GatewayError, badRequest } from '../../http/errors.js';
import { newChatCompletionId, nowSeconds } from '../common/chunks.js';
import { contentParts } from '../common/content.js';
import type { OpenAIFinishReason, OpenAIMessage, OpenAIUsage } from '../common/openai-types.js';
import { openAIUsage } from '../common/usage.js';
import { paramsAskingForMore, withoutUnsupportedParams, type UnsupportedParamChecks } from '../common/unsupported-params.js';
import { CONVERSE_UNSUPPORTED_PARAMS } from './chat-request.js';
import type { AdapterInput, OpenAIBody, UpstreamHeaders } from '../types.js';
import { asRecord, countOf, isRecord, stringOf } from './json.js';

/**
 * Chat for the Bedrock text models the Converse API does not chat with. AWS's "Supported models and model
 * features" table lists them as "Limited. No chat support": Cohere Command and Command Light
 * (`cohere.command-text-v14`, `cohere.command-light-text-v14`) and AI21 Labs Jurassic-2 (`ai21.j2-mid-v1`,
 * `ai21.j2-ultra-v1`). They complete a prompt through InvokeModel, each family with its own body; every other chat
 * model goes through Converse.
 */
export type InvokeChatFamily = 'cohere-command' | 'ai21-jurassic';

export function invokeChatFamilyOf(model: string): InvokeChatFamily | undefined {
  const lower = model.toLowerCase();
  // A cross-region prefix (`us.`) or an ARN may precede the model id.
  if (/(^|[./:])cohere\.command-(light-)?text-/.test(lower)) return 'cohere-command';
  if (/(^|[./:])ai21\.j2-/.test(lower)) return 'ai21-jurassic';
  return undefined;
}

/** Only Cohere Command streams (InvokeModelWithResponseStream); Jurassic-2 answers whole, gw replays it as chunks. */
export function streamsNatively(family: InvokeChatFamily): boolean {
  return family === 'cohere-command';
}

const FAMILY_NAME: Record<InvokeChatFamily, string> = { 'cohere-command': 'Bedrock Cohere Command (InvokeModel)', 'ai21-jurassic': 'Bedrock AI21 Jurassic-2 (InvokeModel)' };

/**
 * Parameters a text-completion body has no field for: Converse's list (penalties aside: Jurassic-2 has both),
 * plus tools, structured output and thinking, which a prompt completion cannot carry. A value that asks for
 * nothing is accepted.
 */
const { presence_penalty: _presence, frequency_penalty: _frequency, ...converseUnsupported } = CONVERSE_UNSUPPORTED_PARAMS;
const UNSUPPORTED: UnsupportedParamChecks = {
  ...converseUnsupported,
  tools: (value) => Array.isArray(value) && value.length === 0,
  tool_choice: (value) => value === 'none',
  functions: (value) => Array.isArray(value) && value.length === 0,
  function_call: (value) => value === 'none',
  parallel_tool_calls: () => true,
  response_format: (value) => isRecord(value) && value.type === 'text',
  thinking: (value) => isRecord(value) && value.type === 'disabled',
};

/** Cohere Command has no penalties (Jurassic-2 has both). */
const COHERE_ALSO_UNSUPPORTED = ['presence_penalty', 'frequency_penalty'];

/** OpenAI chat body → the family's InvokeModel body. */
export function toInvokeChatBody(input: AdapterInput, family: InvokeChatFamily): Record<string, unknown> {
  const names = paramsAskingForMore(input.body, UNSUPPORTED);
  if (family === 'cohere-command') names.push(...COHERE_ALSO_UNSUPPORTED.filter((name) => present(input.body[name]) && input.body[name] !== 0));
  const body = withoutUnsupportedParams(input, FAMILY_NAME[family], names);
  const prompt = promptOf(body.messages);
  const maxTokens = positiveInteger(body.max_completion_tokens ?? body.max_tokens, present(body.max_completion_tokens) ? 'max_completion_tokens' : 'max_tokens');
  const temperature = finiteNumber(body.temperature, 'temperature');
  const topP = finiteNumber(body.top_p, 'top_p');
  const stop = stopSequences(body.stop);
  if (family === 'cohere-command') {
    const cohere: Record<string, unknown> = { prompt };
    if (maxTokens !== undefined) cohere.max_tokens = maxTokens;
    if (temperature !== undefined) cohere.temperature = temperature;
    if (topP !== undefined) cohere.p = topP;
    const topK = finiteNumber(body.top_k, 'top_k');
    if (topK !== undefined) cohere.k = topK;
    if (stop) cohere.stop_sequences = stop;
    if (input.stream) cohere.stream = true;
    return cohere;
  }
  const jurassic: Record<string, unknown> = { prompt };
  if (maxTokens !== undefined) jurassic.maxTokens = maxTokens;
  if (temperature !== undefined) jurassic.temperature = temperature;
  if (topP !== undefined) jurassic.topP = topP;
  if (stop) jurassic.stopSequences = stop;
  const presence = finiteNumber(body.presence_penalty, 'presence_penalty');
  if (presence) jurassic.presencePenalty = { scale: presence };
  const frequency = finiteNumber(body.frequency_penalty, 'frequency_penalty');
  if (frequency) jurassic.frequencyPenalty = { scale: frequency };
  return jurassic;
}

/**
 * The conversation as one prompt. System and developer text comes first; a lone user message is sent as its
 * text; a longer conversation becomes a transcript (`User:` / `Assistant:` turns) ending with `Assistant:`, the
 * cue for the model to answer. Only text is accepted: these models read nothing else.
 */
export function promptOf(messages: unknown): string {
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest('invalid_message', '`messages` must be a non-empty array', 'messages');
  const system: string[] = [];
  const turns: Array<{ speaker: string; text: string }> = [];
  messages.forEach((raw, index) => {
    const message = raw as OpenAIMessage;
    const text = textOf(message, `messages[${index}]`);
    if (message.role === 'system' || message.role === 'developer') system.push(text);
    else if (message.role === 'user') turns.push({ speaker: 'User', text });
    else if (message.role === 'assistant') turns.push({ speaker: 'Assistant', text });
    else throw badRequest('unsupported_content', `messages[${index}].role '${String(message.role)}': this Bedrock text model takes system, user and assistant messages only`, `messages[${index}].role`);
  });
  if (turns.length === 0 || turns.at(-1)!.speaker !== 'User') throw badRequest('invalid_message', 'the last message must be a user message', 'messages');
  const preamble = system.filter((text) => text !== '').join('\n\n');
  const conversation = turns.length === 1 ? turns[0].text : [...turns.map((turn) => `${turn.speaker}: ${turn.text}`), 'Assistant:'].join('\n\n');
  return preamble === '' ? conversation : `${preamble}\n\n${conversation}`;
}

function textOf(message: OpenAIMessage, at: string): string {
  const parts = contentParts(message.content);
  return parts
    .map((part, index) => {
      if (part.type === 'text' && typeof (part as { text?: unknown }).text === 'string') return (part as { text: string }).text;
      if (part.type === 'refusal') return '';
      const where = typeof message.content === 'string' ? `${at}.content` : `${at}.content[${index}]`;
      throw badRequest('unsupported_content', `${where} has type '${part.type}'; this Bedrock text model takes text only`, `${where}.type`);
    })
    .join('');
}

/** The family's InvokeModel answer → an OpenAI `chat.completion`. Token counts come from Bedrock's headers. */
export function invokeChatToCompletion(family: InvokeChatFamily, providerBody: unknown, model: string, headers: UpstreamHeaders = {}): Record<string, unknown> {
  const answer = family === 'cohere-command' ? cohereAnswer(providerBody) : jurassicAnswer(providerBody);
  if (!answer) throw new GatewayError(502, 'invalid_provider_response', `Bedrock answered without a ${family === 'cohere-command' ? 'generation' : 'completion'}`, { type: 'upstream_error', providerError: providerBody });
  return {
    id: newChatCompletionId(),
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: answer.text, refusal: null }, logprobs: null, finish_reason: answer.finish }],
    usage: usageFrom(headers, answer.fallback),
  };
}

interface Answer {
  text: string;
  finish: OpenAIFinishReason;
  /** Counts read from the body, used when Bedrock's token-count headers are missing. */
  fallback: { prompt?: number; completion?: number };
}

function cohereAnswer(providerBody: unknown): Answer | undefined {
  const generation = asRecord(providerBody).generations;
  const first = Array.isArray(generation) ? asRecord(generation[0]) : undefined;
  const text = first ? stringOf(first.text) : undefined;
  return text === undefined ? undefined : { text, finish: cohereFinish(first!.finish_reason), fallback: {} };
}

export function cohereFinish(reason: unknown): OpenAIFinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason === 'ERROR_TOXIC') return 'content_filter';
  return 'stop';
}

function jurassicAnswer(providerBody: unknown): Answer | undefined {
  const body = asRecord(providerBody);
  const completion = Array.isArray(body.completions) ? asRecord(body.completions[0]) : undefined;
  const data = asRecord(completion?.data);
  const text = stringOf(data.text);
  if (text === undefined) return undefined;
  const reason = asRecord(completion!.finishReason).reason;
  const tokens = (value: unknown) => (Array.isArray(value) ? value.length : undefined);
  return { text, finish: reason === 'length' ? 'length' : 'stop', fallback: { prompt: tokens(asRecord(body.prompt).tokens), completion: tokens(data.tokens) } };
}

/** `x-amzn-bedrock-input-token-count` / `-output-token-count`: InvokeModel's usage report. */
function usageFrom(headers: UpstreamHeaders, fallback: Answer['fallback']): OpenAIUsage {
  const header = (name: string) => {
    const value = headers[name];
    const number = Number(Array.isArray(value) ? value[0] : value);
    return value === undefined || !Number.isFinite(number) ? undefined : countOf(number);
  };
  return openAIUsage({
    promptTokens: header('x-amzn-bedrock-input-token-count') ?? fallback.prompt ?? 0,
    completionTokens: header('x-amzn-bedrock-output-token-count') ?? fallback.completion ?? 0,
  });
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function positiveInteger(value: unknown, param: string): number | undefined {
  if (!present(value)) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1) throw badRequest('invalid_parameter', `\`${param}\` must be a positive integer`, param);
  return value as number;
}

function finiteNumber(value: unknown, param: string): number | undefined {
  if (!present(value)) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest('invalid_parameter', `\`${param}\` must be a number`, param);
  return value;
}

function stopSequences(stop: OpenAIBody[string]): string[] | undefined {
  if (!present(stop)) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) throw badRequest('invalid_parameter', '`stop` must be a string or an array of strings', 'stop');
  return list.length > 0 ? list : undefined;
}
