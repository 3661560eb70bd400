import type { OpenApiOperation } from '../openapi-operation.js';

/**
 * The hand-written part of a derived operation's documentation. Everything else (path, method, scopes, parameters,
 * bodies, responses, errors) comes from the definition; a field given here replaces the derived one (a `query`
 * with `?version=`, the errors of a read that validates it, an operationId the document has always used).
 * Type-only: a definition never loads the document builder under scripts/.
 */
export type OperationDoc = Partial<Omit<OpenApiOperation, 'method' | 'path' | 'summary'>> & {
  summary: string;
  /** The success response's description; `The <singular>.` style by default. */
  response?: string;
};
