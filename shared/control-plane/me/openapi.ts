// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { principalViewSchema } from './schemas.js';

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'get',
    path: '/v1/me',
    operationId: 'getMe',
    summary: 'Who the caller is and what it may do',
    description:
      'The caller’s own identity (API key or JWT) and the scopes it holds, expanded, so a client (the web console) can tell which actions are allowed without trying them. Any valid key or token; never a secret; not audited.',
    tags: ['Identities'],
    responses: { '200': { description: 'The caller.', schema: principalViewSchema } },
    errors: [401],
  },
];
