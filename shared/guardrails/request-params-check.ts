import { jsonEqual, shortJson, valueAt } from './json-values.js';
import { deny, PASS, type GuardrailVerdict } from './outcome.js';
import { toolsOf, type RequestBody } from './request-shapes.js';
import type { RequestParamsCheckConfig } from './schemas.js';
import { toolTypeListed } from './tool-types.js';

/**
 * request_params_check: which tools and which parameters (and values) a request may carry. A list that is
 * absent constrains nothing; an empty `allowed…` list allows nothing; when both lists of a pair are given a
 * value must be allowed AND not blocked (the block list wins). Rules run in a fixed order (tool types, function
 * names, blocked keys, allowed keys, values) and the first failure denies.
 */
export function checkRequestParams(config: RequestParamsCheckConfig, endpoint: string, body: RequestBody): GuardrailVerdict {
  return checkTools(config.tools, endpoint, body) ?? checkKeys(config.params, body) ?? checkValues(config.params?.values, body) ?? PASS;
}

function checkTools(rules: RequestParamsCheckConfig['tools'], endpoint: string, body: RequestBody): GuardrailVerdict | undefined {
  if (!rules) return undefined;
  for (const tool of toolsOf(endpoint, body)) {
    if (rules.blockedTypes && toolTypeListed(rules.blockedTypes, tool.type)) return deny('guardrail_tool_type_blocked', `tool type "${tool.type}" is blocked`, `${tool.path}.type`);
    if (rules.allowedTypes && !toolTypeListed(rules.allowedTypes, tool.type)) {
      return deny('guardrail_tool_type_not_allowed', `tool type "${tool.type}" is not among the allowed types (${list(rules.allowedTypes)})`, `${tool.path}.type`);
    }
    // Function-name lists concern tools the client defines; built-in tools (web search, …) have no function name.
    // A tool carrying several names is blocked when any is blocked, and allowed only when all are allowed.
    for (const name of tool.functionNames ?? []) {
      if (rules.blockedFunctionNames?.includes(name)) return deny('guardrail_function_name_blocked', `function "${name}" is blocked`, tool.path);
      if (rules.allowedFunctionNames && !rules.allowedFunctionNames.includes(name)) {
        return deny('guardrail_function_name_not_allowed', `function "${name}" is not among the allowed functions (${list(rules.allowedFunctionNames)})`, tool.path);
      }
    }
  }
  return undefined;
}

function checkKeys(rules: RequestParamsCheckConfig['params'], body: RequestBody): GuardrailVerdict | undefined {
  if (!rules) return undefined;
  // A blocked key may be a dotted path; it counts as present whatever its value, null included.
  for (const key of rules.blockedKeys ?? []) {
    if (valueAt(body, key).found) return deny('guardrail_param_blocked', `parameter "${key}" is blocked`, key);
  }
  if (rules.allowedKeys) {
    const allowed = rules.allowedKeys;
    for (const key of Object.keys(body)) {
      if (!allowed.includes(key)) return deny('guardrail_param_not_allowed', `parameter "${key}" is not among the allowed parameters (${list(allowed)})`, key);
    }
  }
  return undefined;
}

function checkValues(rules: NonNullable<RequestParamsCheckConfig['params']>['values'], body: RequestBody): GuardrailVerdict | undefined {
  // Messages never echo the request's value (it may be sensitive and messages reach logs); the allowed list is config.
  for (const [key, rule] of Object.entries(rules ?? {})) {
    const { found, value } = valueAt(body, key);
    // An absent parameter is not checked: require or forbid keys with allowedKeys / blockedKeys.
    if (!found) continue;
    if (rule.blockedValues && matchesAny(value, rule.blockedValues, 'some')) {
      return deny('guardrail_param_value_blocked', `"${key}" has a blocked value`, key);
    }
    if (rule.allowedValues && !matchesAny(value, rule.allowedValues, 'every')) {
      return deny('guardrail_param_value_not_allowed', `"${key}" has a value not among the allowed values (${list(rule.allowedValues.map(shortJson))})`, key);
    }
  }
  return undefined;
}

/**
 * A value matches a list when it equals an entry (deep JSON equality, no coercion). An array value also
 * matches element-wise: for a block list when SOME element equals an entry, for an allow list when EVERY
 * element does (so `modalities: ["text"]` passes `allowedValues: ["text", "audio"]`).
 */
function matchesAny(value: unknown, entries: readonly unknown[], elements: 'some' | 'every'): boolean {
  if (entries.some((entry) => jsonEqual(value, entry))) return true;
  if (!Array.isArray(value)) return false;
  const listed = (item: unknown) => entries.some((entry) => jsonEqual(item, entry));
  return elements === 'some' ? value.some(listed) : value.every(listed);
}

function list(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(', ');
}
