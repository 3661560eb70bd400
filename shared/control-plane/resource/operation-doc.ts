/**
 * The hand-written part of a derived operation's documentation. Everything else (path, method, scopes, parameters,
 * bodies, responses, errors) comes from the definition; a field given here replaces the derived one.
 * A leaf module of plain types, so a definition never imports the document builder under scripts/.
 */
export interface OperationDoc {
  summary: string;
  description?: string;
  /** The success response's description; `The <singular>.` style by default. */
  response?: string;
  /** Replaces the derived list of error statuses. */
  errors?: number[];
  /** Replaces the derived scopes (e.g. to keep the order a document has always shown). */
  scopes?: string[];
  operationId?: string;
}
