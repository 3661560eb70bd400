import { badRequest } from '../../http/errors.js';
import type { OpenAIBody } from '../types.js';
import { toGeminiSchema } from './schema.js';

interface FunctionDeclaration {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface GeminiToolFields {
  tools?: Array<{ functionDeclarations: FunctionDeclaration[] }>;
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'NONE' | 'ANY'; allowedFunctionNames?: string[] } };
}

/**
 * `tools` (or legacy `functions`) → one Gemini tool holding every function declaration, and `tool_choice`
 * (or legacy `function_call`) → `toolConfig.functionCallingConfig`: none → NONE, auto → AUTO,
 * required → ANY, a named function → ANY limited to that name.
 */
export function toGeminiTools(body: OpenAIBody): GeminiToolFields {
  const declarations = [...declarationsFromTools(body.tools), ...declarationsFromFunctions(body.functions)];
  const fields: GeminiToolFields = {};
  if (declarations.length > 0) fields.tools = [{ functionDeclarations: declarations }];
  const choice = body.tool_choice ?? body.function_call;
  const param = body.tool_choice !== undefined ? 'tool_choice' : 'function_call';
  if (choice !== undefined && choice !== null) {
    const config = functionCallingConfig(choice, param);
    if (config.mode !== 'NONE' && declarations.length === 0) {
      throw badRequest('invalid_tool_choice', `${param} asks for a tool call but the request declares no tools`, param);
    }
    fields.toolConfig = { functionCallingConfig: config };
  }
  return fields;
}

function declarationsFromTools(tools: unknown): FunctionDeclaration[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw badRequest('invalid_tools', 'tools must be an array', 'tools');
  return tools.map((tool, index) => {
    const param = `tools[${index}]`;
    const record = tool as { type?: unknown; function?: unknown } | null;
    if (!record || record.type !== 'function') {
      throw badRequest('invalid_tools', `${param}.type must be "function"; Gemini supports function tools only through gw`, `${param}.type`);
    }
    return declaration(record.function, `${param}.function`);
  });
}

function declarationsFromFunctions(functions: unknown): FunctionDeclaration[] {
  if (functions === undefined || functions === null) return [];
  if (!Array.isArray(functions)) throw badRequest('invalid_tools', 'functions must be an array', 'functions');
  return functions.map((entry, index) => declaration(entry, `functions[${index}]`));
}

function declaration(raw: unknown, param: string): FunctionDeclaration {
  const fn = raw as { name?: unknown; description?: unknown; parameters?: unknown } | null;
  if (!fn || typeof fn.name !== 'string' || fn.name === '') throw badRequest('invalid_tools', `${param}.name must be a non-empty string`, `${param}.name`);
  const out: FunctionDeclaration = { name: fn.name };
  if (typeof fn.description === 'string') out.description = fn.description;
  if (fn.parameters !== undefined && fn.parameters !== null) {
    const parameters = toGeminiSchema(fn.parameters, `${param}.parameters`);
    // Gemini refuses an OBJECT with no properties; a function without arguments simply has no `parameters`.
    const properties = parameters.properties as Record<string, unknown> | undefined;
    if (!(parameters.type === 'OBJECT' && (!properties || Object.keys(properties).length === 0))) out.parameters = parameters;
  }
  return out;
}

function functionCallingConfig(choice: unknown, param: string): NonNullable<GeminiToolFields['toolConfig']>['functionCallingConfig'] {
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'required' || choice === 'any') return { mode: 'ANY' };
  const named = choice as { type?: unknown; function?: { name?: unknown }; name?: unknown } | null;
  const name = named?.function?.name ?? named?.name;
  if (typeof name === 'string' && name !== '') return { mode: 'ANY', allowedFunctionNames: [name] };
  throw badRequest('invalid_tool_choice', `${param} must be "none", "auto", "required" or {"type": "function", "function": {"name": …}}`, param);
}

/**
 * A request made with the legacy `functions` API (and no `tools`) is answered in the legacy form:
 * `message.function_call` / `delta.function_call` and `finish_reason: "function_call"`. That form holds one call;
 * when Gemini calls several functions at once, the first is reported.
 */
export function usesLegacyFunctions(body: OpenAIBody): boolean {
  return Array.isArray(body.functions) && (body.tools === undefined || body.tools === null);
}
