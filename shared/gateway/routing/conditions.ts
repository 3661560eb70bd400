import type { ConditionQuery } from '../config/schema.js';

/** What a conditional-routing query can look at: the request metadata and the body parameters. */
export interface ConditionInput {
  metadata: Record<string, string>;
  params: Record<string, unknown>;
}

const COMPARISONS = ['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$regex'] as const;
type Comparison = (typeof COMPARISONS)[number];
const FIELD_PREFIXES = ['metadata.', 'params.'];

/** Checks a query's shape; returns a message for the first problem, or undefined when it is valid. */
export function queryProblem(query: unknown): string | undefined {
  if (typeof query !== 'object' || query === null || Array.isArray(query)) return 'a query must be an object';
  for (const [key, value] of Object.entries(query)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0) return `${key} takes a non-empty array of queries`;
      for (const part of value) {
        const problem = queryProblem(part);
        if (problem) return problem;
      }
      continue;
    }
    if (key.startsWith('$')) return `unknown operator ${key}; allowed: $and, $or, ${COMPARISONS.join(', ')}`;
    if (!FIELD_PREFIXES.some((prefix) => key.startsWith(prefix) && key.length > prefix.length)) {
      return `unknown field "${key}"; query fields are metadata.<key> or params.<key>`;
    }
    if (isOperatorObject(value)) {
      for (const [operator, operand] of Object.entries(value)) {
        if (!(COMPARISONS as readonly string[]).includes(operator)) return `unknown operator ${operator}; allowed: ${COMPARISONS.join(', ')}`;
        if ((operator === '$in' || operator === '$nin') && !Array.isArray(operand)) return `${operator} takes an array`;
        if (operator === '$regex') {
          if (typeof operand !== 'string') return '$regex takes a string';
          try {
            new RegExp(operand);
          } catch {
            return `invalid $regex ${JSON.stringify(operand)}`;
          }
        }
      }
    }
  }
  return undefined;
}

export function matchesQuery(query: ConditionQuery, input: ConditionInput): boolean {
  return Object.entries(query).every(([key, value]) => {
    if (key === '$and') return (value as ConditionQuery[]).every((part) => matchesQuery(part, input));
    if (key === '$or') return (value as ConditionQuery[]).some((part) => matchesQuery(part, input));
    const actual = readField(key, input);
    if (!isOperatorObject(value)) return equals(actual, value);
    return Object.entries(value).every(([operator, operand]) => compare(operator as Comparison, actual, operand));
  });
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).some((key) => key.startsWith('$'));
}

function readField(key: string, input: ConditionInput): unknown {
  if (key.startsWith('metadata.')) return input.metadata[key.slice('metadata.'.length)];
  let current: unknown = input.params;
  for (const part of key.slice('params.'.length).split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function compare(operator: Comparison, actual: unknown, operand: unknown): boolean {
  switch (operator) {
    case '$eq':
      return equals(actual, operand);
    case '$ne':
      return !equals(actual, operand);
    case '$in':
      return (operand as unknown[]).some((candidate) => equals(actual, candidate));
    case '$nin':
      return !(operand as unknown[]).some((candidate) => equals(actual, candidate));
    case '$regex':
      return typeof actual === 'string' && new RegExp(operand as string).test(actual);
    default: {
      const left = toNumber(actual);
      const right = toNumber(operand);
      if (left === undefined || right === undefined) return false;
      if (operator === '$gt') return left > right;
      if (operator === '$gte') return left >= right;
      if (operator === '$lt') return left < right;
      return left <= right;
    }
  }
}

function equals(actual: unknown, expected: unknown): boolean {
  if (actual === expected) return true;
  // Metadata values are strings: let {"$eq": 5} match "5".
  return actual !== undefined && actual !== null && typeof expected !== 'object' && String(actual) === String(expected);
}

function toNumber(value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(number) ? number : undefined;
}
