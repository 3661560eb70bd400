import Mustache from 'mustache';
import { badRequest } from '../http/errors.js';

/**
 * Mustache `{{variable}}` templates inside prompt messages. Prompts are not HTML, so nothing is escaped; a
 * value that is an object or array is written as JSON. Mustache renders an unknown name as an empty string,
 * so missing variables are found here, before rendering, from the parsed template.
 *
 * A plain tag (`{{name}}`, `{{{name}}}`, `{{&name}}`, dotted `{{user.name}}`) outside any section is required.
 * Sections (`{{#x}}…{{/x}}`, `{{^x}}…{{/x}}`) are conditions, so their names may be absent, and names inside
 * them are resolved against the section's own context and are not checked.
 */

// Parsed templates are not cached: mustache's cache has no bound, and a prompt template is parsed in microseconds.
Mustache.templateCache = undefined;

type Spans = ReturnType<typeof Mustache.parse>;
type JsonValue = unknown;

/** Every string inside a message except its role: content (text or parts), name, and so on. */
function forEachTemplateString(messages: ReadonlyArray<Record<string, unknown>>, visit: (text: string, path: string) => void): void {
  const walk = (value: JsonValue, path: string): void => {
    if (typeof value === 'string') visit(value, path);
    else if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${path}[${index}]`));
    else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
  };
  messages.forEach((message, index) => {
    for (const [key, value] of Object.entries(message)) if (key !== 'role') walk(value, `messages[${index}].${key}`);
  });
}

function parse(text: string, path: string): Spans {
  try {
    return Mustache.parse(text);
  } catch (error) {
    throw badRequest('invalid_template', `${path}: ${(error as Error).message}`, path);
  }
}

/** Checks that every template string parses and uses no partials (gw has none to offer). */
export function validateTemplateMessages(messages: ReadonlyArray<Record<string, unknown>>): void {
  forEachTemplateString(messages, (text, path) => {
    const hasPartial = (spans: Spans): boolean =>
      spans.some((span) => span[0] === '>' || (span[0] === '#' || span[0] === '^' ? hasPartial(span[4] as Spans) : false));
    if (hasPartial(parse(text, path))) throw badRequest('invalid_template', `${path}: partials ({{> name}}) are not supported`, path);
  });
}

/** The names a render needs, in order of first use: plain tags outside sections. */
export function requiredVariables(messages: ReadonlyArray<Record<string, unknown>>): string[] {
  const names = new Set<string>();
  forEachTemplateString(messages, (text, path) => {
    for (const span of parse(text, path)) {
      if ((span[0] === 'name' || span[0] === '&') && span[1] !== '.') names.add(span[1]);
    }
  });
  return [...names];
}

function resolves(variables: Record<string, unknown>, name: string): boolean {
  let current: unknown = variables;
  for (const part of name.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, part)) return false;
    current = (current as Record<string, unknown>)[part];
  }
  return current !== undefined;
}

/** Renders the messages' template strings; a 400 naming every missing variable when any is missing. */
export function renderTemplateMessages(messages: ReadonlyArray<Record<string, unknown>>, variables: Record<string, unknown>): Array<Record<string, unknown>> {
  const missing = requiredVariables(messages).filter((name) => !resolves(variables, name));
  if (missing.length > 0) {
    throw badRequest('missing_variables', `Missing variables: ${missing.join(', ')}; send them in "variables"`, 'variables');
  }
  const render = (value: JsonValue): JsonValue => {
    if (typeof value === 'string') return Mustache.render(value, variables, undefined, { escape: writeValue });
    if (Array.isArray(value)) return value.map(render);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item)]));
    return value;
  };
  return messages.map((message) =>
    Object.fromEntries(Object.entries(message).map(([key, value]) => [key, key === 'role' ? value : render(value)])),
  );
}

/** Replaces HTML escaping: strings as they are, anything else as JSON. */
function writeValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}
