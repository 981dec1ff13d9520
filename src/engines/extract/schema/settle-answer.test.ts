import { describe, expect, it } from 'vitest';
import { checkSchema } from './check-schema.js';
import { settleAnswer } from './settle-answer.js';

const SCHEMA = checkSchema({
  type: 'object',
  properties: {
    name: { type: 'string' },
    price: { type: ['number', 'null'] },
    brand: { type: 'string' },
    maker: {
      type: 'object',
      properties: { name: { type: 'string' }, site: { type: 'string' } },
      required: ['name'],
    },
    offers: {
      type: 'array',
      items: { type: 'object', properties: { seller: { type: 'string' }, price: { type: 'number' } } },
    },
    extra: { type: 'object' },
  },
  required: ['name', 'price'],
}).schema;

describe('a model’s answer settled for the caller', () => {
  it('drops the nulls of optional members, keeps a required one’s, names each in warnings', () => {
    expect(
      settleAnswer(
        {
          name: 'Kettle',
          price: null,
          brand: null,
          maker: { name: 'Acme', site: null },
          offers: [
            { seller: 'A', price: null },
            { seller: null, price: 3 },
          ],
          extra: null,
        },
        SCHEMA,
      ),
    ).toEqual({
      data: { name: 'Kettle', price: null, maker: { name: 'Acme' }, offers: [{ seller: 'A' }, { price: 3 }] },
      warnings: [
        'price: not stated on the page',
        'brand: not stated on the page',
        'maker.site: not stated on the page',
        'offers[0].price: not stated on the page',
        'offers[1].seller: not stated on the page',
        'extra: not stated on the page',
      ],
    });
  });

  it('keeps only the members the schema names; a free-form object is answered empty with a warning', () => {
    const { data, warnings } = settleAnswer(
      { name: 'Kettle', price: 2, pwned: true, maker: { name: 'Acme', x: 1 }, extra: { anything: 1 } },
      SCHEMA,
    );
    expect(data).toEqual({ name: 'Kettle', price: 2, maker: { name: 'Acme' }, extra: {} });
    expect(warnings).toEqual([
      'brand: not stated on the page',
      'maker.site: not stated on the page',
      'offers: not stated on the page',
      'extra: an object without properties is not filled by the model; list its properties',
    ]);
  });

  it('leaves a value of the wrong type as it is, for the validator to refuse', () => {
    expect(settleAnswer({ name: 5, price: 'x', maker: 'Acme', offers: {} }, SCHEMA).data).toEqual({
      name: 5,
      price: 'x',
      maker: 'Acme',
      offers: {},
    });
  });
});
