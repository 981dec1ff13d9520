import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from './json-text.js';

const Steps = Type.Array(
  Type.Object({ type: Type.Literal('wait'), milliseconds: Type.Integer({ maximum: 100 }) }),
  {
    maxItems: 2,
  },
);

describe('parseJsonText', () => {
  it('reads the value from JSON text or as it came, and leaves an absent one absent', () => {
    expect(parseJsonText('actions', '[{"type":"wait","milliseconds":5}]', Steps)).toEqual([
      { type: 'wait', milliseconds: 5 },
    ]);
    expect(parseJsonText('actions', [{ type: 'wait', milliseconds: 5 }], Steps)).toEqual([
      { type: 'wait', milliseconds: 5 },
    ]);
    expect(parseJsonText('actions', undefined, Steps)).toBeUndefined();
  });

  it('names the parameter for malformed JSON and for a value the schema refuses, with where', () => {
    expect(() => parseJsonText('actions', '[{', Steps)).toThrow('actions is not valid JSON');
    expect(() => parseJsonText('actions', '[{"type":"wait","milliseconds":500}]', Steps)).toThrow(
      /actions must be <= 100 at \/0\/milliseconds$/,
    );
    expect(() => parseJsonText('actions', '[1]', Steps)).toThrow(/actions must be object at \/0$/);
    const three = JSON.stringify(Array(3).fill({ type: 'wait', milliseconds: 1 }));
    expect(() => parseJsonText('actions', three, Steps)).toThrow(/actions must not have more than 2 items$/);
  });
});
