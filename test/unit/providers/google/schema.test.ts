import { describe, expect, it } from 'vitest';
import { toGeminiSchema } from '../../../../shared/providers/google/schema.js';
import { gatewayErrorOf } from './helpers.js';

describe('JSON Schema → Gemini Schema', () => {
  it('rewrites what Pydantic and Zod generate (anyOf-null, const, oneOf, allOf, $defs, integer enums)', () => {
    const schema = toGeminiSchema(
      {
        type: 'object',
        title: 'Order',
        properties: {
          note: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, description: 'Free text' },
          kind: { const: 'order' },
          size: { type: 'integer', enum: [1, 2, 3], format: 'int32' },
          payment: { oneOf: [{ $ref: '#/definitions/card' }, { type: 'object', properties: { iban: { type: 'string' } } }] },
          address: { allOf: [{ $ref: '#/definitions/street' }, { properties: { city: { type: 'string' } }, required: ['city'] }] },
          tags: { type: 'array' },
          amount: { type: ['number', 'string'], exclusiveMinimum: 0 },
        },
        definitions: {
          card: { type: 'object', properties: { number: { type: 'string', pattern: '^[0-9]+$' } }, required: ['number'] },
          street: { type: 'object', properties: { street: { type: 'string', minLength: 1 } }, required: ['street'] },
        },
      },
      'tools[0].function.parameters',
    );
    expect(schema).toEqual({
      title: 'Order',
      type: 'OBJECT',
      properties: {
        note: { type: 'STRING', description: 'Free text', default: null, nullable: true },
        kind: { type: 'STRING', enum: ['order'] },
        size: { type: 'INTEGER', enum: ['1', '2', '3'], format: 'int32' },
        payment: {
          anyOf: [
            { type: 'OBJECT', properties: { number: { type: 'STRING', pattern: '^[0-9]+$' } }, required: ['number'] },
            { type: 'OBJECT', properties: { iban: { type: 'STRING' } } },
          ],
        },
        address: {
          type: 'OBJECT',
          properties: { street: { type: 'STRING', minLength: 1 }, city: { type: 'STRING' } },
          required: ['street', 'city'],
        },
        tags: { type: 'ARRAY', items: { type: 'STRING' } },
        amount: { anyOf: [{ type: 'NUMBER' }, { type: 'STRING' }] },
      },
    });
  });

  it('refuses a recursive $ref with a 400 instead of looping', () => {
    const error = gatewayErrorOf(() =>
      toGeminiSchema({ $ref: '#/$defs/node', $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } } }, 'response_format.json_schema.schema'),
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_schema');
    expect(error.param).toBe('response_format.json_schema.schema');
  });

  it('refuses unknown types and non-object schemas', () => {
    expect(gatewayErrorOf(() => toGeminiSchema({ type: 'date' }, 'p')).message).toContain('"date"');
    expect(gatewayErrorOf(() => toGeminiSchema('string', 'p')).status).toBe(400);
  });
});
