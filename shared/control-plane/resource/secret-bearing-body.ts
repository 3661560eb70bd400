import type { z } from 'zod';
import { badRequest, GatewayError } from '../../http/errors.js';
import type { NeutralRequest } from '../../http/types.js';
import { parseJsonBody } from '../../http/json-body.js';

/**
 * Like parseJsonBody, but a JSON syntax error is reported without the parser's message: V8 quotes a piece of the
 * input there, and the input of a resource that stores credentials (virtual keys, integrations, MCP servers)
 * holds a credential.
 */
export function parseSecretBearingBody<Schema extends z.ZodType>(request: NeutralRequest, schema: Schema): z.infer<Schema> {
  try {
    return parseJsonBody(request, schema);
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'invalid_json') throw badRequest('invalid_json', 'The request body is not valid JSON');
    throw error;
  }
}
