import { describe, expect, it } from 'vitest';
import { booleanFrom, dateFrom, numberFrom, schemaOrgName } from './coerce.js';

describe('numberFrom', () => {
  it('reads one number in either decimal convention', () => {
    expect(numberFrom('€1.299,00')).toBe(1299);
    expect(numberFrom('$1,299.99')).toBe(1299.99);
    expect(numberFrom('1.234.567')).toBe(1234567);
    expect(numberFrom('12,5')).toBe(12.5);
    expect(numberFrom('0.125')).toBe(0.125);
    expect(numberFrom('2\u00a0450 kr')).toBe(2450);
    expect(numberFrom('-3 °C')).toBe(-3);
    expect(numberFrom('1299')).toBe(1299);
  });

  it('refuses text with no number or more than one', () => {
    expect(numberFrom('free')).toBeNull();
    expect(numberFrom('4.5 out of 5')).toBeNull();
    expect(numberFrom('10-20')).toBeNull();
  });
});

describe('dateFrom', () => {
  it('reads ISO 8601 and written dates', () => {
    expect(dateFrom('2024-02-29')).toEqual({ date: '2024-02-29' });
    expect(dateFrom('2024-03-05T10:00:00+0100')).toEqual({
      date: '2024-03-05',
      time: { clock: '10:00:00', offset: '+01:00' },
    });
    expect(dateFrom('2024-03-05T10:00')).toEqual({
      date: '2024-03-05',
      time: { clock: '10:00:00', offset: '' },
    });
    expect(dateFrom('Sept. 3, 2025')).toEqual({ date: '2025-09-03' });
    expect(dateFrom('Sep 3, 2025')).toEqual({ date: '2025-09-03' });
    expect(dateFrom('3rd September 2025')).toEqual({ date: '2025-09-03' });
    expect(dateFrom('2025/09/03')).toEqual({ date: '2025-09-03' });
  });

  it('refuses impossible and ambiguous dates', () => {
    expect(dateFrom('2023-02-29')).toBeNull();
    expect(dateFrom('2024-13-01')).toBeNull();
    expect(dateFrom('04/05/2024')).toBeNull();
    expect(dateFrom('tomorrow')).toBeNull();
    expect(dateFrom('2024-03-05T25:00')).toBeNull();
  });
});

describe('enumerations and booleans', () => {
  it('drops the schema.org prefix and reads stock states', () => {
    expect(schemaOrgName('https://schema.org/InStock')).toBe('InStock');
    expect(schemaOrgName('http://schema.org/SoldOut')).toBe('SoldOut');
    expect(schemaOrgName('In stock')).toBe('In stock');
    expect(booleanFrom('instock')).toBe(true);
    expect(booleanFrom('soldout')).toBe(false);
    expect(booleanFrom('maybe')).toBeNull();
  });
});
