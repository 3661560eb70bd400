import { GatewayError } from '../../../http/errors.js';
import type { SqlStatement } from '../types.js';

/** Athena's limit on one execution parameter's length (characters). */
export const MAX_PARAMETER_LENGTH = 1024;

/** A value that cannot be a Trino literal at all (a non-finite number, an unknown type): a programming error upstream. */
export class AthenaParameterError extends GatewayError {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(400, 'invalid_request', message);
    this.name = 'AthenaParameterError';
  }
}

/** A statement as Athena takes it: the text, and its `ExecutionParameters` (absent when there are none). */
export interface AthenaStatement {
  sql: string;
  parameters?: string[];
}

/**
 * A statement's `?` values as Athena's `ExecutionParameters`. Athena splices each one into the query text where its
 * `?` stands, as written, so each must be a complete Trino literal: a string in single quotes with every quote
 * doubled (Trino strings have no backslash escapes, so nothing else is special), a number as a plain or exponent
 * literal, `true`/`false`, `NULL`.
 *
 * Two kinds of string cannot be one such literal, and are still passed whole (so a filter means the same on Athena
 * as on DuckDB, whatever it holds): one longer than Athena's 1,024 characters per parameter once quoted, and one
 * holding a NUL (which no Trino literal can contain). Their `?` becomes a parenthesised concatenation of several
 * parameters, each within the limit, with `chr(0)` written into the text (code, not input) where a NUL stands:
 * `(? || chr(0) || ?)`. The value compared is the same string; nothing of it reaches the text.
 */
export function bindParameters(sql: string, params: SqlStatement['params']): AthenaStatement {
  if (params.length === 0) return { sql };
  const parameters: string[] = [];
  let text = '';
  let next = 0;
  let inString = false;
  for (const character of sql) {
    if (character === "'") inString = !inString;
    if (character !== '?' || inString) {
      text += character;
      continue;
    }
    if (next >= params.length) throw new Error(`the statement has more placeholders than its ${params.length} parameters`);
    const value = params[next];
    const pieces = typeof value === 'string' ? stringPieces(value) : undefined;
    if (pieces === undefined) {
      parameters.push(trinoLiteral(value, next));
      text += '?';
    } else {
      parameters.push(...pieces.filter((piece) => piece !== NUL_PIECE).map((piece) => trinoLiteral(piece, next)));
      text += `(${pieces.map((piece) => (piece === NUL_PIECE ? 'chr(0)' : '?')).join(' || ')})`;
    }
    next++;
  }
  if (next !== params.length) throw new Error(`the statement has ${next} placeholders for ${params.length} parameters`);
  return { sql: text, parameters };
}

const NUL_PIECE = Symbol('NUL');

/**
 * A string that fits one literal → undefined (bound as it is); otherwise its pieces in order: runs of text whose
 * quoted literal fits the limit, and NUL_PIECE for each NUL. Cut between code points, never inside a surrogate pair.
 */
function stringPieces(value: string): Array<string | typeof NUL_PIECE> | undefined {
  if (!value.includes('\u0000') && quotedLength(value) <= MAX_PARAMETER_LENGTH) return undefined;
  const pieces: Array<string | typeof NUL_PIECE> = [];
  let current = '';
  let length = 2;
  for (const character of value) {
    if (character === '\u0000') {
      if (current !== '') pieces.push(current);
      pieces.push(NUL_PIECE);
      current = '';
      length = 2;
      continue;
    }
    const added = character === "'" ? 2 : character.length;
    if (length + added > MAX_PARAMETER_LENGTH) {
      pieces.push(current);
      current = '';
      length = 2;
    }
    current += character;
    length += added;
  }
  if (current !== '') pieces.push(current);
  return pieces;
}

const quotedLength = (value: string) => value.length + 2 + (value.match(/'/g)?.length ?? 0);

/** One value as one Trino literal; throws for what cannot be one (bindParameters splits strings that cannot). */
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
