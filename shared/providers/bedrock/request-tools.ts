import { badRequest } from '../../http/errors.js';
import { recordDropped } from '../common/unsupported-params.js';
import type { AdapterInput, OpenAIBody } from '../types.js';
import { CACHE_POINT, type ConverseToolChoice, type ConverseToolConfig, type ConverseToolSpec } from './converse-types.js';
import { isRecord, stringOf } from './json.js';

export interface ToolPlan {
  toolConfig?: ConverseToolConfig;
  /** The request used the legacy `functions` / `function_call`; the answer then uses `function_call` too. */
  legacyFunctions: boolean;
}

type ChoiceIntent = { kind: 'default' } | { kind: 'none' } | { kind: 'set'; choice: ConverseToolChoice; name?: string };

/**
 * `tools` / `tool_choice` (or the legacy `functions` / `function_call`) → Converse `toolConfig`.
 *
 * Converse has no "none" choice. `tool_choice: "none"` is honoured by not sending the tools at all, which is
 * exact — except when the conversation already holds tool calls or results: Converse then refuses a request
 * without tool definitions, so gw answers 400 (or, with x-gw-drop-unsupported-params, drops the choice).
 */
export function toConverseTools(body: OpenAIBody, hasToolBlocks: boolean, drop: Pick<AdapterInput, 'dropUnsupportedParams' | 'droppedParams'>): ToolPlan {
  const hasTools = body.tools !== undefined && body.tools !== null;
  const hasFunctions = body.functions !== undefined && body.functions !== null;
  if (hasTools && hasFunctions) throw badRequest('invalid_tools', 'Send either `tools` or the legacy `functions`, not both', 'functions');
  const legacyFunctions = hasFunctions;
  const specs = legacyFunctions ? functionSpecs(body.functions) : toolSpecs(body.tools);
  const choiceParam = legacyFunctions ? 'function_call' : 'tool_choice';
  const intent = readChoice(legacyFunctions ? body.function_call : body.tool_choice, choiceParam, legacyFunctions);

  if (intent.kind === 'set' && intent.name !== undefined && !specs.some((spec) => spec.toolSpec.name === intent.name)) {
    throw badRequest('invalid_tool_choice', `${choiceParam} names '${intent.name}', which is not among the ${legacyFunctions ? 'functions' : 'tools'}`, choiceParam);
  }
  if (specs.length === 0) {
    if (intent.kind === 'set' && !('auto' in intent.choice)) {
      throw badRequest('invalid_tool_choice', `${choiceParam} asks for a tool call, but no ${legacyFunctions ? 'functions' : 'tools'} were given`, choiceParam);
    }
    return { legacyFunctions };
  }
  if (intent.kind === 'none') {
    if (!hasToolBlocks) return { legacyFunctions };
    if (!drop.dropUnsupportedParams) {
      throw badRequest(
        'unsupported_parameter',
        `Bedrock cannot honour ${choiceParam} "none" in a conversation that already holds tool calls: Converse then needs the tool definitions and has no "none" choice. Remove ${choiceParam}, or send x-gw-drop-unsupported-params: true to have gw drop it`,
        choiceParam,
      );
    }
    recordDropped(drop, [choiceParam]);
    return { toolConfig: { tools: withCachePoints(specs, body.tools) }, legacyFunctions };
  }
  const toolConfig: ConverseToolConfig = { tools: withCachePoints(specs, legacyFunctions ? undefined : body.tools) };
  if (intent.kind === 'set') toolConfig.toolChoice = intent.choice;
  return { toolConfig, legacyFunctions };
}

function toolSpecs(tools: unknown): ConverseToolSpec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw badRequest('invalid_tools', '`tools` must be an array', 'tools');
  return tools.map((tool: unknown, index) => {
    const at = `tools[${index}]`;
    if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) {
      throw badRequest('unsupported_tool', `${at} must be {"type": "function", "function": {...}}; Bedrock supports function tools only`, `${at}.type`);
    }
    return toolSpec(tool.function, `${at}.function`);
  });
}

/** A tool carrying Anthropic-style `cache_control` is followed by a Converse `cachePoint` (cache up to here). */
function withCachePoints(specs: ConverseToolSpec[], tools: unknown): ConverseToolConfig['tools'] {
  if (!Array.isArray(tools)) return specs;
  return specs.flatMap((spec, index) => (isRecord(tools[index]) && isRecord((tools[index] as Record<string, unknown>).cache_control) ? [spec, CACHE_POINT] : [spec]));
}

function functionSpecs(functions: unknown): ConverseToolSpec[] {
  if (!Array.isArray(functions)) throw badRequest('invalid_tools', '`functions` must be an array', 'functions');
  return functions.map((fn: unknown, index) => {
    if (!isRecord(fn)) throw badRequest('invalid_tools', `functions[${index}] must be an object`, `functions[${index}]`);
    return toolSpec(fn, `functions[${index}]`);
  });
}

function toolSpec(fn: Record<string, unknown>, at: string): ConverseToolSpec {
  const name = stringOf(fn.name);
  if (!name) throw badRequest('invalid_tools', `${at}.name must be a string`, `${at}.name`);
  const parameters = fn.parameters;
  if (parameters !== undefined && parameters !== null && !isRecord(parameters)) {
    throw badRequest('invalid_tools', `${at}.parameters must be a JSON Schema object`, `${at}.parameters`);
  }
  const spec: ConverseToolSpec['toolSpec'] = {
    name,
    // Converse insists on an input schema; OpenAI lets a function without parameters mean "no arguments".
    inputSchema: { json: isRecord(parameters) ? parameters : { type: 'object', properties: {} } },
  };
  const description = stringOf(fn.description);
  if (description) spec.description = description;
  if (fn.strict === true) spec.strict = true;
  return { toolSpec: spec };
}

function readChoice(value: unknown, param: string, legacy: boolean): ChoiceIntent {
  if (value === undefined || value === null) return { kind: 'default' };
  if (value === 'none') return { kind: 'none' };
  if (value === 'auto') return { kind: 'set', choice: { auto: {} } };
  if (value === 'required' && !legacy) return { kind: 'set', choice: { any: {} } };
  const name = legacy
    ? isRecord(value) ? stringOf(value.name) : undefined
    : isRecord(value) && value.type === 'function' && isRecord(value.function) ? stringOf(value.function.name) : undefined;
  if (name) return { kind: 'set', choice: { tool: { name } }, name };
  const expected = legacy ? '"none", "auto" or {"name": …}' : '"none", "auto", "required" or {"type": "function", "function": {"name": …}}';
  throw badRequest('invalid_tool_choice', `${param} must be ${expected}`, param);
}
