import Database from 'better-sqlite3';
import { eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { positionalRun, type SqliteDrizzle } from '../../src/store/sqlite/positional-run.js';

const items = sqliteTable('items', {
  id: text('id').primaryKey(),
  done: integer('done', { mode: 'boolean' }).notNull(),
  size: integer('size'),
  kind: text('kind').notNull(),
});

describe('positionalRun', () => {
  let db: SqliteDrizzle;

  beforeEach(() => {
    db = drizzle({ client: new Database(':memory:') });
    db.$client.exec(
      'CREATE TABLE items (id TEXT PRIMARY KEY, done INTEGER NOT NULL, size INTEGER, kind TEXT NOT NULL)',
    );
  });

  afterEach(() => db.$client.close());

  const raw = () => db.$client.prepare('SELECT id, done, size, kind FROM items ORDER BY id').all();

  it("binds placeholders through their column's encoder and constants as drizzle would", () => {
    const insert = positionalRun(
      db.$client,
      db
        .insert(items)
        .values({
          id: sql.placeholder('id'),
          done: sql.placeholder('done'),
          size: sql.placeholder('size'),
          kind: 'fixed',
        })
        .toSQL(),
    );
    expect(insert({ id: 'a', done: true, size: 3 }).changes).toBe(1);
    insert({ id: 'b', done: false, size: null });
    // The boolean column stores 1 and 0: drizzle's encoder ran, where better-sqlite3 alone refuses a boolean.
    expect(raw()).toEqual([
      { id: 'a', done: 1, size: 3, kind: 'fixed' },
      { id: 'b', done: 0, size: null, kind: 'fixed' },
    ]);
    // Read back through drizzle, the values are as they were given.
    expect(db.select().from(items).where(eq(items.id, 'a')).all()).toEqual([
      { id: 'a', done: true, size: 3, kind: 'fixed' },
    ]);
  });

  it('runs an update whose placeholders sit in its SET and WHERE, and says how many rows changed', () => {
    db.$client.exec("INSERT INTO items VALUES ('a', 0, 1, 'k'), ('b', 0, 1, 'k')");
    const finish = positionalRun(
      db.$client,
      db
        .update(items)
        .set({ done: sql.placeholder('done') as never })
        .where(eq(items.id, sql.placeholder('id')))
        .toSQL(),
    );
    expect(finish({ id: 'b', done: true }).changes).toBe(1);
    expect(finish({ id: 'missing', done: true }).changes).toBe(0);
    expect(raw().map((row) => (row as { done: number }).done)).toEqual([0, 1]);
  });

  it('refuses a missing value by its name, and writes nothing', () => {
    const insert = positionalRun(
      db.$client,
      db
        .insert(items)
        .values({ id: sql.placeholder('id'), done: sql.placeholder('done'), size: null, kind: 'k' })
        .toSQL(),
    );
    expect(() => insert({ id: 'a' })).toThrow('No value for placeholder "done" was provided');
    expect(raw()).toEqual([]);
  });
});
