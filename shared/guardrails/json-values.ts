/**
 * JSON equality and paths for request_params_check. No type coercion: `1` never equals `"1"`, `true` never
 * equals `"true"`, `null` equals only `null`; objects are equal when they have the same keys with equal values
 * (key order aside), arrays when they have equal elements in the same order.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) {
    const other = right as unknown[];
    return left.length === other.length && left.every((item, index) => jsonEqual(item, other[index]));
  }
  const leftKeys = Object.keys(left);
  const rightRecord = right as Record<string, unknown>;
  if (leftKeys.length !== Object.keys(rightRecord).length) return false;
  return leftKeys.every((key) => Object.hasOwn(rightRecord, key) && jsonEqual((left as Record<string, unknown>)[key], rightRecord[key]));
}

/**
 * The value at a parameter name or dotted path (`reasoning.effort`) of the body. `found` is false when some
 * step is missing or not an object. A key that itself contains a dot is matched whole first.
 */
export function valueAt(body: Record<string, unknown>, path: string): { found: boolean; value?: unknown } {
  if (Object.hasOwn(body, path)) return { found: true, value: body[path] };
  let current: unknown = body;
  for (const step of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, step)) return { found: false };
    current = (current as Record<string, unknown>)[step];
  }
  return { found: true, value: current };
}

export function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
