import type { RequestTypeName } from './schemas.js';

/**
 * How each inbound dialect carries what guardrails look at. Bodies are the client's own, in its dialect:
 * chat and completions (OpenAI), embeddings, Responses (`input`, `tools`) and Anthropic Messages.
 */
export type GuardedEndpoint = 'chat' | 'completions' | 'embeddings' | 'responses' | 'messages';

export type RequestBody = Record<string, unknown>;

/** The `allowed_request_types` name of an endpoint. */
export function requestTypeName(endpoint: string): RequestTypeName | string {
  return endpoint === 'chat' ? 'chat/completions' : endpoint;
}

/** One tool a request offers the model, normalised across dialects. */
export interface RequestTool {
  /** `function` for a tool the client defines (OpenAI function/custom tools, Anthropic client tools); otherwise the dialect's own type. */
  type: string;
  /**
   * The names a client-defined tool goes by; undefined for built-in tools (web search, file search, …). A tool
   * may be written in another dialect's shape (a Responses tool as chat's `{type: "function", function: {name}}`)
   * or carry a name in both places: every name it carries is listed (`''` when it has none), so a rule cannot be
   * passed by putting the name where the check does not look.
   */
  functionNames?: string[];
  /** JSON path of the tool in the body, for the error's `param`. */
  path: string;
}

/**
 * The tools of a request:
 * - chat: `tools[]` (`{type: "function", function: {name}}`, `{type: "custom", custom: {name}}`) and the legacy `functions[]`;
 * - responses: `tools[]` (`{type: "function", name}`, `{type: "custom", name}`, `{type: "web_search"}`, `{type: "mcp"}`, …);
 * - messages: `tools[]`: a client tool (`{name, input_schema}`, `type` absent or "custom") is a `function`;
 *   a server tool keeps its versioned type (`web_search_20250305`, `bash_20250124`, …) and its `name` is not a function name;
 * - completions and embeddings carry no tools.
 * In every dialect a function or custom tool's names are read from `name`, `function.name` and `custom.name`.
 */
export function toolsOf(endpoint: string, body: RequestBody): RequestTool[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const found: RequestTool[] = [];
  tools.forEach((tool, index) => {
    const path = `tools[${index}]`;
    if (!isObject(tool)) return found.push({ type: String(tool), path });
    found.push(describeTool(endpoint, tool, path));
  });
  if (Array.isArray(body.functions)) {
    body.functions.forEach((fn, index) => found.push({ type: 'function', functionNames: namesOf(isObject(fn) ? fn : {}), path: `functions[${index}]` }));
  }
  return found;
}

function describeTool(endpoint: string, tool: RequestBody, path: string): RequestTool {
  const type = typeof tool.type === 'string' ? tool.type : undefined;
  if (endpoint === 'messages') {
    if (type === undefined || type === 'custom' || type === 'function') return { type: 'function', functionNames: namesOf(tool), path };
    return { type, path };
  }
  if (type === 'function' || type === 'custom') return { type, functionNames: namesOf(tool), path };
  return { type: type ?? 'unknown', path };
}

/** Every name a client-defined tool carries, in any dialect's shape; `['']` when it has none. */
function namesOf(tool: RequestBody): string[] {
  const names = [tool.name, isObject(tool.function) ? tool.function.name : undefined, isObject(tool.custom) ? tool.custom.name : undefined].filter((name): name is string => typeof name === 'string');
  return names.length > 0 ? [...new Set(names)] : [''];
}

export function isObject(value: unknown): value is RequestBody {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
