import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindParameters, MAX_PARAMETER_LENGTH, trinoLiteral } from '../../../shared/observability/engine/aws/athena-parameters.js';

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
    const values = [0, -42, 2 ** 40, 0.5, -1.25e-7, 1e21, true, false, null];
    expect(bindParameters(values.map(() => '?').join(', '), values).parameters).toEqual(['0', '-42', '1099511627776', '5E-1', '-1.25E-7', '1E+21', 'true', 'false', 'NULL']);
    expect(bindParameters('SELECT 1', [])).toEqual({ sql: 'SELECT 1' });
  });

  it('refuses, as one literal, what cannot be one: NaN, infinities, NUL, values over the 1,024-character limit', () => {
    expect(() => trinoLiteral(Number.NaN)).toThrow(/not a finite number/);
    expect(() => trinoLiteral(Number.POSITIVE_INFINITY)).toThrow(/not a finite number/);
    expect(() => trinoLiteral('a\u0000b')).toThrow(/NUL/);
    expect(trinoLiteral('x'.repeat(MAX_PARAMETER_LENGTH - 2))).toHaveLength(MAX_PARAMETER_LENGTH);
    expect(() => trinoLiteral('x'.repeat(MAX_PARAMETER_LENGTH - 1))).toThrow(/longer than Athena accepts/);
    expect(() => bindParameters('?', [Number.NaN])).toThrow(/not a finite number/);
  });
});

/** The value a concatenation of literals and chr(0) means, read with the literal reader above. */
function readConcatenation(text: string, parameters: readonly string[]): { value: string; rest: string } {
  let queue = [...parameters];
  let rest = text;
  let value = '';
  const take = () => {
    if (rest.startsWith('chr(0)')) {
      value += '\u0000';
      rest = rest.slice('chr(0)'.length);
    } else if (rest.startsWith('?')) {
      const read = readStringLiteral(queue[0]);
      expect(read.rest).toBe('');
      value += read.value;
      queue = queue.slice(1);
      rest = rest.slice(1);
    } else throw new Error(`unexpected ${rest}`);
  };
  if (!rest.startsWith('(')) {
    take();
    return { value, rest };
  }
  rest = rest.slice(1);
  for (;;) {
    take();
    if (rest.startsWith(' || ')) rest = rest.slice(4);
    else break;
  }
  expect(rest[0]).toBe(')');
  expect(queue).toEqual([]);
  return { value, rest: rest.slice(1) };
}

describe('bindParameters', () => {
  it('binds a value too long for one parameter as several, each within the limit, concatenated in the text', () => {
    // 512 quotes (the filters' limit) quote to 1,026 characters: one over Athena's limit.
    const value = "'".repeat(512);
    const bound = bindParameters('SELECT id FROM requests WHERE element_at(metadata, ?) = ? AND workspace_id = ?', ['team', value, 'ws_1']);
    expect(bound.sql).toBe('SELECT id FROM requests WHERE element_at(metadata, ?) = (? || ?) AND workspace_id = ?');
    expect(bound.parameters).toHaveLength(4);
    for (const parameter of bound.parameters!) expect(parameter.length).toBeLessThanOrEqual(MAX_PARAMETER_LENGTH);
    const at = bound.sql.indexOf('(?');
    expect(readConcatenation(bound.sql.slice(at), bound.parameters!.slice(1, 3))).toEqual({ value, rest: ' AND workspace_id = ?' });
  });

  it('writes a NUL as chr(0) in the text between parameters, never inside one', () => {
    const bound = bindParameters('x = ?', ['a\u0000b\u0000']);
    expect(bound).toEqual({ sql: 'x = (? || chr(0) || ? || chr(0))', parameters: ["'a'", "'b'"] });
  });

  it('reads back every string (any length, quotes, NULs, astral characters) as itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("'", 'a', '\u0000', '𝄞', 'é'), maxLength: 1_500 }), (value) => {
        const bound = bindParameters('v = ? AND w = ?', [value, 'tail']);
        for (const parameter of bound.parameters!) if (parameter.length > MAX_PARAMETER_LENGTH) return false;
        const read = readConcatenation(bound.sql.slice('v = '.length), bound.parameters!.slice(0, -1));
        return read.value === value && read.rest === ' AND w = ?' && bound.parameters!.at(-1) === "'tail'";
      }),
      { numRuns: 200 },
    );
  });

  it('leaves question marks inside the text\'s own string literals alone', () => {
    expect(bindParameters("UNLOAD (SELECT ? AS a) TO 's3://b/x?/' WITH (format = 'JSON')", ['v'])).toEqual({ sql: "UNLOAD (SELECT ? AS a) TO 's3://b/x?/' WITH (format = 'JSON')", parameters: ["'v'"] });
  });
});
