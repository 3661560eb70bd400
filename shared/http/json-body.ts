import type { z } from 'zod';
import { badRequest } from './errors.js';
import { assertJsonNesting } from './json-nesting.js';
import { firstIssue } from './validation-issue.js';
import { assertStorableNumbers } from './json-numbers.js';
import type { NeutralRequest } from './types.js';

const MAX_CONTROL_PLANE_BODY_BYTES = 1024 * 1024;

/** Parses and validates a JSON body with a zod schema; the first issue becomes a 400 naming its path. */
export function parseJsonBody<Schema extends z.ZodType>(request: NeutralRequest, schema: Schema): z.infer<Schema> {
  if (request.body.length > MAX_CONTROL_PLANE_BODY_BYTES) {
    throw badRequest('body_too_large', `The request body must be at most ${MAX_CONTROL_PLANE_BODY_BYTES} bytes`);
  }
  const text = request.body.toString('utf8');
  assertJsonNesting(text, 'The request body');
  let raw: unknown;
  try {
    raw = request.body.length === 0 ? {} : JSON.parse(text);
  } catch (error) {
    throw badRequest('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  assertStorableNumbers(raw);
  return validate(schema, raw);
}

export function validate<Schema extends z.ZodType>(schema: Schema, value: unknown): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { message, param } = firstIssue(result.error);
  throw badRequest('invalid_request', message, param);
}
