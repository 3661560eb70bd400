/** What one guardrail decided about one request. */
export type GuardrailVerdict =
  | { action: 'pass' }
  | { action: 'transform'; body: Record<string, unknown>; detail: string }
  | { action: 'skip'; detail: string }
  | { action: 'deny'; violation: Violation };

/** Why a request was denied: `code` names the rule, `param` the JSON path in the body (or the endpoint). */
export interface Violation {
  code: string;
  message: string;
  param: string | null;
}

export const PASS: GuardrailVerdict = { action: 'pass' };

export function deny(code: string, message: string, param: string | null): GuardrailVerdict {
  return { action: 'deny', violation: { code, message, param } };
}
