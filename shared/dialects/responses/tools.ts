import { badRequest } from '../../http/errors.js';
import { isRecord } from '../../providers/common/json-guards.js';
import { recordDropped } from '../../providers/common/unsupported-params.js';
import type { OpenAIBody } from '../../providers/types.js';
import type { UnsupportedParamRule } from '../types.js';

type Json = Record<string, unknown>;

/**
 * Responses tools → chat function tools, and the way back for the calls a translated model makes.
 *
 * - `function` tools map one to one.
 * - A `namespace` (Codex groups its multi-agent and MCP tools this way) is a set of function tools: each becomes
 *   a function named `<namespace>__<name>` (chat names allow `[A-Za-z0-9_-]`, so no dot), and a call of that name
 *   goes back to the client as `{type: "function_call", namespace, name}` as OpenAI would answer.
 * - A `custom` (free-form) tool takes one string: it becomes a function with a single `input` string parameter,
 *   and its calls go back as `custom_tool_call` items carrying that string.
 * - `web_search` (and its `web_search_preview` forms) becomes chat's `web_search_options` on targets that run a
 *   web search of their own (Anthropic's server tool; Gemini's Google Search grounding when no function tools are
 *   declared beside it; see webSearchOptionsFrom).
 * - Other built-in tools that run on OpenAI's side (file search, code interpreter, …), and web search elsewhere,
 *   have no equivalent on a translated target: they follow the unsupported-parameter rule, named `tools.<type>` in
 *   the 400 or in `x-gw-dropped-params` when the caller allows dropping.
 */

/** What a chat function name stood for in the client's request. */
export interface ToolOrigin {
  name: string;
  namespace?: string;
  custom: boolean;
}

export const NAMESPACE_SEPARATOR = '__';

const CUSTOM_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input of this free-form tool.' } },
  required: ['input'],
};

/**
 * Whether the target's chat translation runs a web search of its own for `web_search_options`: Anthropic's models
 * always; Gemini (Google Search grounding) only when the request declares no function tools beside it, which
 * Google cannot combine with its search.
 */
function targetSearches(provider: string, model: unknown, tools: unknown[]): boolean {
  if (provider === 'anthropic' || (provider === 'vertex-ai' && typeof model === 'string' && /claude/i.test(model))) return true;
  const declaresFunctions = tools.some((tool) => isRecord(tool) && !WEB_SEARCH_TYPES.has(String(tool.type)));
  return (provider === 'google' || provider === 'vertex-ai') && !declaresFunctions;
}
const WEB_SEARCH_TYPES: ReadonlySet<string> = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

/**
 * A Responses `web_search` tool → chat `web_search_options`, where the target can search: the user's approximate
 * location carries over. A domain filter cannot be honoured there, and searching more widely than the caller
 * asked is never done silently: such a tool stays unsupported.
 */
export function webSearchOptionsFrom(tools: unknown[], provider: string, model: unknown): Json | undefined {
  if (!targetSearches(provider, model, tools)) return undefined;
  const tool = tools.find((candidate) => isRecord(candidate) && WEB_SEARCH_TYPES.has(String(candidate.type)) && candidate.filters === undefined) as Json | undefined;
  if (!tool) return undefined;
  const options: Json = {};
  const location = recordOrUndefined(tool.user_location);
  if (location) {
    const approximate: Json = {};
    for (const name of ['city', 'region', 'country', 'timezone']) if (typeof location[name] === 'string') approximate[name] = location[name];
    options.user_location = { type: 'approximate', approximate };
  }
  if (typeof tool.search_context_size === 'string') options.search_context_size = tool.search_context_size;
  return options;
}

const recordOrUndefined = (value: unknown): Json | undefined => (isRecord(value) ? value : undefined);

/** The chat tools for a Responses body's `tools`, dropping (or refusing) the built-in ones the target cannot run. */
export function chatToolsFrom(tools: unknown[], provider: string, model: unknown, rule: UnsupportedParamRule): Json[] {
  const out: Json[] = [];
  const unsupported: string[] = [];
  const searching = webSearchOptionsFrom(tools, provider, model) !== undefined;
  tools.forEach((tool, index) => {
    if (!isRecord(tool)) throw badRequest('invalid_tool', `tools[${index}] must be an object`, `tools.${index}`);
    if (tool.type === 'function' || tool.type === 'custom') out.push(chatTool(tool, undefined, `tools.${index}`));
    else if (searching && WEB_SEARCH_TYPES.has(String(tool.type)) && tool.filters === undefined) return;
    else if (tool.type === 'namespace') out.push(...namespaceTools(tool, index));
    else if (!rule.dropUnsupportedParams) {
      throw badRequest(
        'unsupported_tool',
        `The built-in tool '${String(tool.type)}' (tools[${index}]) runs only on OpenAI targets; provider '${provider}' cannot run it. Remove it, or send x-gw-drop-unsupported-params: true to have gw drop it (named in x-gw-dropped-params)`,
        `tools.${index}.type`,
      );
    } else unsupported.push(`tools.${String(tool.type)}`);
  });
  recordDropped(rule, unsupported);
  return out;
}

function namespaceTools(tool: Json, index: number): Json[] {
  const param = `tools.${index}`;
  if (typeof tool.name !== 'string' || tool.name === '') throw badRequest('invalid_tool', `${param}: a namespace needs a name`, `${param}.name`);
  if (!Array.isArray(tool.tools)) throw badRequest('invalid_tool', `${param}: a namespace needs its \`tools\``, `${param}.tools`);
  const namespace = tool.name;
  return tool.tools.map((inner: unknown, innerIndex) => {
    const innerParam = `${param}.tools.${innerIndex}`;
    if (!isRecord(inner) || (inner.type !== 'function' && inner.type !== 'custom')) {
      throw badRequest('unsupported_tool', `${innerParam}: a namespace holds function or custom tools`, `${innerParam}.type`);
    }
    const chat = chatTool(inner, namespace, innerParam);
    // The model sees which group a tool belongs to, as OpenAI shows it the namespace's description.
    if (typeof tool.description === 'string' && tool.description !== '') {
      const fn = chat.function as Json;
      fn.description = [tool.description, fn.description].filter((text) => typeof text === 'string' && text !== '').join('\n\n');
    }
    return chat;
  });
}

function chatTool(tool: Json, namespace: string | undefined, param: string): Json {
  if (typeof tool.name !== 'string' || tool.name === '') throw badRequest('invalid_tool', `${param} needs a name`, `${param}.name`);
  const custom = tool.type === 'custom';
  const parameters = custom ? CUSTOM_TOOL_PARAMETERS : isRecord(tool.parameters) ? tool.parameters : { type: 'object', properties: {} };
  const fn: Json = { name: chatName(tool.name, namespace), parameters };
  if (typeof tool.description === 'string') fn.description = tool.description;
  if (!custom && typeof tool.strict === 'boolean') fn.strict = tool.strict;
  return { type: 'function', function: fn };
}

export function chatName(name: string, namespace?: unknown): string {
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}${NAMESPACE_SEPARATOR}${name}` : name;
}

/** The chat function names of a request's tools → what each stood for (namespaced and custom tools only). */
export function toolOrigins(body: OpenAIBody): Map<string, ToolOrigin> {
  const origins = new Map<string, ToolOrigin>();
  const add = (tool: Json, namespace?: string) => {
    if (typeof tool.name !== 'string') return;
    const custom = tool.type === 'custom';
    if (custom || namespace) origins.set(chatName(tool.name, namespace), { name: tool.name, namespace, custom });
  };
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isRecord(tool)) continue;
    if (tool.type === 'namespace' && typeof tool.name === 'string' && Array.isArray(tool.tools)) {
      for (const inner of tool.tools) if (isRecord(inner)) add(inner, tool.name);
    } else add(tool);
  }
  return origins;
}

/** A model's tool call (chat name and JSON arguments) → the Responses output item the client's tool expects. */
export function callItem(origins: Map<string, ToolOrigin>, id: string, callId: string, chatFunctionName: string, args: string, status = 'completed'): Json {
  const origin = origins.get(chatFunctionName);
  if (origin?.custom) {
    const item: Json = { type: 'custom_tool_call', id, call_id: callId, name: origin.name, input: customInput(args), status };
    if (origin.namespace) item.namespace = origin.namespace;
    return item;
  }
  const item: Json = { type: 'function_call', id, call_id: callId, name: origin?.name ?? chatFunctionName, arguments: args, status };
  if (origin?.namespace) item.namespace = origin.namespace;
  return item;
}

/** The string a free-form tool receives: the `input` argument the model filled in (or its raw text). */
function customInput(args: string): string {
  try {
    const parsed: unknown = JSON.parse(args);
    if (isRecord(parsed) && typeof parsed.input === 'string') return parsed.input;
  } catch {
    // A model that answered the free-form text itself: pass it on as it is.
  }
  return args;
}
