import { badRequest } from './errors.js';

/**
 * Every number a client sends must be one gw can store and use exactly: within ±(2^53 − 1), the range in which a
 * JavaScript number is an exact integer and which DynamoDB's marshaller accepts. Beyond it (`9007199254740993`,
 * `1e16`, `1e308`) the value parsed is already not the value sent (9007199254740993 arrives as …992), and storing
 * it would fail in the marshaller as a 500. Checked on the parsed body, everywhere at once (limits, budgets,
 * configs' `override_params`, deployments, …): 400 `invalid_number` naming the field by its JSON path.
 */
export function assertStorableNumbers(value: unknown, path = ''): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
      const field = path || null;
      throw badRequest('invalid_number', `${path || 'The request body'}: numbers must lie between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (2^53 - 1)`, field);
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertStorableNumbers(item, `${path}[${index}]`));
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) assertStorableNumbers(item, path ? `${path}.${key}` : key);
  }
}
