import { GatewayError } from '../../../http/errors.js';
import type { SqlStatement } from '../types.js';

/** Athena's limit on one execution parameter's length (characters). */
export const MAX_PARAMETER_LENGTH = 1024;

/** A value Athena cannot take as one parameter: the caller's filter, so a 400 in the one error shape. */
export class AthenaParameterError extends GatewayError {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(400, 'invalid_request', message);
    this.name = 'AthenaParameterError';
  }
}

/**
 * A statement's `?` values as Athena's `ExecutionParameters`. Athena splices each one into the query text where its
 * `?` stands, as written, so each must be a complete Trino literal: a string in single quotes with every quote
 * doubled (Trino strings have no backslash escapes, so nothing else is special), a number as a plain or
 * exponent literal, `true`/`false`, `NULL`. Anything that cannot be one literal is refused, never passed on.
 */
export function executionParameters(params: SqlStatement['params']): string[] | undefined {
  if (params.length === 0) return undefined;
  return params.map((value, index) => trinoLiteral(value, index));
}

export function trinoLiteral(value: SqlStatement['params'][number], index = 0): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new AthenaParameterError(`parameter ${index + 1} is not a finite number`, index);
    // Integers as INTEGER/BIGINT literals; anything else in exponent form, which Trino reads as DOUBLE.
    return Number.isSafeInteger(value) ? String(value) : value.toExponential().toUpperCase();
  }
  if (typeof value !== 'string') throw new AthenaParameterError(`parameter ${index + 1} has an unsupported type`, index);
  // A NUL cannot be part of a Trino string literal and would cut the query text short.
  if (value.includes('\u0000')) throw new AthenaParameterError(`parameter ${index + 1} contains a NUL character`, index);
  const literal = `'${value.replaceAll("'", "''")}'`;
  if (literal.length > MAX_PARAMETER_LENGTH) {
    throw new AthenaParameterError(`parameter ${index + 1} is longer than Athena accepts (${MAX_PARAMETER_LENGTH} characters quoted)`, index);
  }
  return literal;
}
