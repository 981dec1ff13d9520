import { describe, expect, it } from 'vitest';
import { checkSchema } from './check-schema.js';
import { strictSchema } from './strict-schema.js';

const strict = (schema: object) => strictSchema(checkSchema(schema).schema);

describe('the strict schema of a caller’s schema', () => {
  it('requires every property, admits null where the caller did not require, closes every object', () => {
    expect(
      strict({
        type: 'object',
        properties: {
          name: { type: 'string' },
          maker: {
            type: 'object',
            properties: { name: { type: 'string' }, site: { type: 'string' } },
            required: ['name'],
          },
          offers: {
            type: 'array',
            items: {
              type: 'object',
              properties: { price: { type: ['number', 'null'] } },
              required: ['price'],
            },
          },
        },
        required: ['name', 'offers'],
      }),
    ).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        maker: {
          type: ['object', 'null'],
          properties: { name: { type: 'string' }, site: { type: ['string', 'null'] } },
          required: ['name', 'site'],
          additionalProperties: false,
        },
        offers: {
          type: 'array',
          items: {
            type: 'object',
            properties: { price: { type: ['number', 'null'] } },
            required: ['price'],
            additionalProperties: false,
          },
        },
      },
      required: ['name', 'maker', 'offers'],
      additionalProperties: false,
    });
  });

  it('adds null to an optional enum, and gives an enum without a type its values’ types', () => {
    expect(
      strict({
        type: 'object',
        properties: {
          stock: { enum: ['in', 'out'] },
          size: { enum: [1, 'L'] },
          grade: { type: 'string', enum: ['a', 'b'] },
        },
        required: ['grade'],
      }).properties,
    ).toEqual({
      stock: { type: ['string', 'null'], enum: ['in', 'out', null] },
      size: { type: ['number', 'string', 'null'], enum: [1, 'L', null] },
      grade: { type: 'string', enum: ['a', 'b'] },
    });
  });

  it('folds title and format into the description and drops them', () => {
    expect(
      strict({
        type: 'object',
        properties: {
          a: { type: 'string', title: 'Published', description: 'When it came out', format: 'date' },
          b: { type: 'string', format: 'email' },
          c: { type: 'string', title: 'Name' },
        },
        required: ['a', 'b', 'c'],
      }).properties,
    ).toEqual({
      a: { type: 'string', description: 'Published: When it came out (a date as YYYY-MM-DD)' },
      b: { type: 'string', description: 'an email address' },
      c: { type: 'string', description: 'Name' },
    });
  });

  it('what strict mode cannot say: free-form objects have no members, extra members are not asked, anything is text', () => {
    expect(
      strict({
        type: 'object',
        properties: {
          free: { type: 'object' },
          open: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: true },
          anything: { description: 'whatever' },
          list: { type: 'array' },
        },
        required: ['free', 'open', 'anything', 'list'],
      }).properties,
    ).toEqual({
      free: { type: 'object', properties: {}, required: [], additionalProperties: false },
      open: {
        type: 'object',
        properties: { x: { type: ['string', 'null'] } },
        required: ['x'],
        additionalProperties: false,
      },
      anything: { type: 'string', description: 'whatever' },
      list: { type: 'array', items: { type: 'string' } },
    });
  });

  it('keeps a property named __proto__ as a property', () => {
    const out = strict({
      type: 'object',
      properties: JSON.parse('{"__proto__": {"type": "string"}}'),
      required: ['__proto__'],
    });
    expect(JSON.stringify(out)).toBe(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"additionalProperties":false}',
    );
  });
});
