import type { z } from 'zod';

/**
 * What gw says about a body its schema refused: the first issue, as `path: message`, and the path as the error's
 * `param`. One function for the API's 400 (json-body.ts) and the console's checks before sending, so the page shows
 * the very message gw would answer.
 */
export function firstIssue(error: z.ZodError): { message: string; param: string | null } {
  const issue = error.issues[0];
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('').replace(/^\./, '');
  return { message: path ? `${path}: ${issue.message}` : issue.message, param: path || null };
}
