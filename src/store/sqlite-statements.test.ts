import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { reusingStatements } from './sqlite-statements.js';

describe('reusingStatements', () => {
  it('prepares each SQL text once and keeps the most recently used within capacity', () => {
    const raw = new SqliteDatabase(':memory:');
    let prepared = 0;
    const prepare = raw.prepare.bind(raw);
    raw.prepare = ((sql: string) => {
      prepared += 1;
      return prepare(sql);
    }) as typeof raw.prepare;
    const db = reusingStatements(raw, 2);
    const a = db.prepare('select 1 as n');
    expect(db.prepare('select 1 as n')).toBe(a);
    expect(prepared).toBe(1);
    expect(a.all([])).toEqual([{ n: 1 }]);
    const b = db.prepare('select 2 as n');
    db.prepare('select 1 as n');
    db.prepare('select 3 as n');
    // 'select 2' was the least recently used of the three, so it alone was dropped.
    expect(db.prepare('select 1 as n')).toBe(a);
    expect(db.prepare('select 2 as n')).not.toBe(b);
    expect(prepared).toBe(4);
    db.close();
    expect(raw.open).toBe(false);
  });
});
