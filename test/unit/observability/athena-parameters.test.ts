import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { executionParameters, MAX_PARAMETER_LENGTH, trinoLiteral } from '../../../shared/observability/engine/aws/athena-parameters.js';

/**
 * Athena splices each ExecutionParameters value into the query text where its `?` stands, so every value must be
 * exactly one Trino literal that ends where it should. Checked with a reader of Trino's string-literal grammar
 * (`'` then any characters, `''` for a quote, then `'`): whatever the value, the literal reads back as the value and
 * nothing of it is left over to become SQL.
 */
function readStringLiteral(text: string): { value: string; rest: string } {
  if (text[0] !== "'") throw new Error('not a string literal');
  let value = '';
  for (let at = 1; at < text.length; at++) {
    if (text[at] !== "'") {
      value += text[at];
      continue;
    }
    if (text[at + 1] === "'") {
      value += "'";
      at++;
      continue;
    }
    return { value, rest: text.slice(at + 1) };
  }
  throw new Error('unterminated string literal');
}

const HOSTILE = [
  ["x' OR '1'='1", "'x'' OR ''1''=''1'"],
  ["'; DROP TABLE requests; --", "'''; DROP TABLE requests; --'"],
  ["\\'", "'\\'''"],
  ["''", "''''''"],
  ['', "''"],
  ['?', "'?'"],
  ["a'\n) UNION SELECT * FROM spans --", "'a''\n) UNION SELECT * FROM spans --'"],
  ['/* comment */ "quoted" ${x} %s $1', "'/* comment */ \"quoted\" ${x} %s $1'"],
  ['çà ☃ 𝄞 \u202e', "'çà ☃ 𝄞 \u202e'"],
] as const;

describe('trinoLiteral', () => {
  it.each(HOSTILE)('quotes %j as one literal', (value, literal) => {
    expect(trinoLiteral(value)).toBe(literal);
    expect(readStringLiteral(literal)).toEqual({ value, rest: '' });
  });

  it('reads back every string as itself, with nothing left over', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }).filter((value) => !value.includes('\u0000')), (value) => {
        const read = readStringLiteral(`${trinoLiteral(value)} AND workspace_id = 'ws_1'`);
        return read.value === value && read.rest === " AND workspace_id = 'ws_1'";
      }),
      { numRuns: 300 },
    );
  });

  it('writes numbers as INTEGER/BIGINT or DOUBLE literals, booleans and NULL as keywords', () => {
    expect(executionParameters([0, -42, 2 ** 40, 0.5, -1.25e-7, 1e21, true, false, null])).toEqual(['0', '-42', '1099511627776', '5E-1', '-1.25E-7', '1E+21', 'true', 'false', 'NULL']);
    expect(executionParameters([])).toBeUndefined();
  });

  it('refuses what cannot be one literal: NaN, infinities, NUL, values over the 1,024-character limit', () => {
    expect(() => trinoLiteral(Number.NaN)).toThrow(/not a finite number/);
    expect(() => trinoLiteral(Number.POSITIVE_INFINITY)).toThrow(/not a finite number/);
    expect(() => trinoLiteral('a\u0000b')).toThrow(/NUL/);
    expect(trinoLiteral('x'.repeat(MAX_PARAMETER_LENGTH - 2))).toHaveLength(MAX_PARAMETER_LENGTH);
    expect(() => trinoLiteral('x'.repeat(MAX_PARAMETER_LENGTH - 1))).toThrow(/longer than Athena accepts/);
    // Doubling counts: 600 quotes become 1,202 characters.
    expect(() => executionParameters(['ok', "'".repeat(600)])).toThrow(/parameter 2 is longer/);
  });
});
