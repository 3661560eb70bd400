import { badRequest } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';
import { copyRenamedParams } from '../common/renamed-params.js';
import type { OpenAIMessage, OpenAITool } from '../common/openai-types.js';
import { paramsAskingForMore, refuseOrRecordDrop, type UnsupportedParamChecks } from '../common/unsupported-params.js';
import type { AdapterInput } from '../types.js';

export const PROVIDER_NAME = 'Cohere';

/** OpenAI parameters Cohere's v2 chat has no field for, with the values that ask for nothing. */
const UNSUPPORTED: UnsupportedParamChecks = {
  n: (value) => value === 1,
  logit_bias: (value) => isRecord(value) && Object.keys(value).length === 0,
  logprobs: (value) => value === false,
  top_logprobs: () => false,
  parallel_tool_calls: (value) => value === true,
  functions: () => false,
  function_call: () => false,
  audio: () => false,
  modalities: () => false,
};

/** OpenAI names → Cohere v2 names, for the parameters that only differ in name. */
const RENAMED: Record<string, string> = {
  max_tokens: 'max_tokens',
  max_completion_tokens: 'max_tokens',
  temperature: 'temperature',
  top_p: 'p',
  seed: 'seed',
  frequency_penalty: 'frequency_penalty',
  presence_penalty: 'presence_penalty',
};

/** OpenAI chat body → Cohere `POST /v2/chat` body (messages, tools, response format, sampling). */
export function toCohereChatBody(input: AdapterInput): Record<string, unknown> {
  const source = input.body;
  const unsupported = paramsAskingForMore(source, UNSUPPORTED);
  refuseOrRecordDrop(input, PROVIDER_NAME, unsupported);
  const body: Record<string, unknown> = { model: source.model, messages: toCohereMessages(source.messages) };
  copyRenamedParams(source, body, RENAMED);
  if (source.stop !== undefined && source.stop !== null) body.stop_sequences = Array.isArray(source.stop) ? source.stop : [source.stop];
  if (Array.isArray(source.tools) && source.tools.length > 0) {
    body.tools = (source.tools as OpenAITool[]).map(toCohereTool);
    // Cohere's strictness is one switch for all tools (`strict_tools`); any tool asking for it turns it on.
    if ((source.tools as OpenAITool[]).some((tool) => tool?.function?.strict === true)) body.strict_tools = true;
  }
  const toolChoice = toCohereToolChoice(source.tool_choice, input);
  if (toolChoice) body.tool_choice = toolChoice;
  const responseFormat = toCohereResponseFormat(source.response_format);
  if (responseFormat) body.response_format = responseFormat;
  if (typeof source.reasoning_effort === 'string') {
    // Cohere's reasoning models take `thinking: {type: enabled|disabled}`; `none` is the only effort that turns it off.
    body.thinking = { type: source.reasoning_effort === 'none' ? 'disabled' : 'enabled' };
  }
  if (input.stream) body.stream = true;
  return body;
}

function toCohereMessages(messages: unknown): Record<string, unknown>[] {
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest('invalid_request', '`messages` must be a non-empty array', 'messages');
  return (messages as OpenAIMessage[]).map((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(message.content, param) };
      case 'user':
        return { role: 'user', content: userContent(message.content, param) };
      case 'assistant': {
        const out: Record<string, unknown> = { role: 'assistant' };
        const text = message.content === null || message.content === undefined ? '' : textOf(message.content, param);
        if (message.tool_calls?.length) {
          out.tool_calls = message.tool_calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }));
          // Cohere keeps the text before a tool call as the model's plan, not as content.
          if (text !== '') out.tool_plan = text;
        } else out.content = text;
        return out;
      }
      case 'tool':
        return { role: 'tool', tool_call_id: message.tool_call_id, content: textOf(message.content, param) };
      default:
        throw badRequest('invalid_request', `${PROVIDER_NAME} does not accept messages with role '${String(message.role)}'`, `${param}.role`);
    }
  });
}

/** User content: a string, or text and image parts (Cohere's vision models take `image_url` parts as OpenAI does). */
function userContent(content: OpenAIMessage['content'], param: string): unknown {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest('invalid_request', 'message content must be a string or an array of parts', `${param}.content`);
  return content.map((part, index) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image_url') return { type: 'image_url', image_url: part.image_url };
    throw badRequest('unsupported_content', `${PROVIDER_NAME} does not accept content parts of type '${part.type}'`, `${param}.content[${index}].type`);
  });
}

function textOf(content: OpenAIMessage['content'], param: string): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  return content
    .map((part, index) => {
      if (part.type !== 'text') throw badRequest('unsupported_content', `${PROVIDER_NAME} takes only text in this message`, `${param}.content[${index}].type`);
      return String(part.text);
    })
    .join('');
}

function toCohereTool(tool: OpenAITool, index: number): Record<string, unknown> {
  if (tool?.type !== 'function' || !isRecord(tool.function)) {
    throw badRequest('invalid_request', `${PROVIDER_NAME} supports only function tools`, `tools[${index}].type`);
  }
  const fn: Record<string, unknown> = { name: tool.function.name, parameters: tool.function.parameters ?? { type: 'object', properties: {} } };
  if (tool.function.description) fn.description = tool.function.description;
  return { type: 'function', function: fn };
}

/** Cohere knows `REQUIRED` and `NONE`; `auto` is its default; naming one function it cannot honour. */
function toCohereToolChoice(choice: unknown, input: AdapterInput): string | undefined {
  if (choice === undefined || choice === null || choice === 'auto') return undefined;
  if (choice === 'required') return 'REQUIRED';
  if (choice === 'none') return 'NONE';
  refuseOrRecordDrop(input, PROVIDER_NAME, ['tool_choice'], 'naming one function (only auto, required or none)');
  return undefined;
}

function toCohereResponseFormat(format: unknown): Record<string, unknown> | undefined {
  if (!isRecord(format) || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema' && isRecord(format.json_schema) && isRecord(format.json_schema.schema)) {
    return { type: 'json_object', json_schema: format.json_schema.schema };
  }
  throw badRequest('invalid_request', '`response_format` must be text, json_object or json_schema with a schema', 'response_format');
}
