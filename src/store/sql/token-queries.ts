import { and, asc, eq, isNull } from 'drizzle-orm';
import type { ApiToken } from '../../core/access/api-token.js';
import type { NewApiToken } from '../store.js';
import { apiTokenColumns } from './columns.js';
import type { StoreDialect } from './dialect.js';

// API tokens, written once for both dialects. Every write names its RETURNING columns: a SQLite session
// runs a built query with all(), which only statements that return rows allow.

/** Null when a live token already has that name (the partial unique index on live names). */
export async function insertApiToken(dialect: StoreDialect, token: NewApiToken): Promise<ApiToken | null> {
  const { apiTokens } = dialect.tables;
  const rows = await dialect.write((session) =>
    session.query<ApiToken>((db) =>
      db
        .insert(apiTokens)
        .values({ ...token, lastUsedAt: null, revokedAt: null })
        .onConflictDoNothing()
        .returning(apiTokenColumns(dialect.tables)),
    ),
  );
  return rows[0] ?? null;
}

export async function listApiTokens(dialect: StoreDialect): Promise<ApiToken[]> {
  const { apiTokens } = dialect.tables;
  return dialect.session.query<ApiToken>((db) =>
    db
      .select(apiTokenColumns(dialect.tables))
      .from(apiTokens)
      .where(isNull(apiTokens.revokedAt))
      .orderBy(asc(apiTokens.name)),
  );
}

export async function revokeApiToken(
  dialect: StoreDialect,
  name: string,
  at: number,
): Promise<ApiToken | null> {
  const { apiTokens } = dialect.tables;
  const rows = await dialect.write((session) =>
    session.query<ApiToken>((db) =>
      db
        .update(apiTokens)
        .set({ revokedAt: at })
        .where(and(eq(apiTokens.name, name), isNull(apiTokens.revokedAt)))
        .returning(apiTokenColumns(dialect.tables)),
    ),
  );
  return rows[0] ?? null;
}

export async function touchApiToken(dialect: StoreDialect, id: string, at: number): Promise<void> {
  const { apiTokens } = dialect.tables;
  await dialect.write((session) =>
    session.query((db) =>
      db
        .update(apiTokens)
        .set({ lastUsedAt: at })
        .where(eq(apiTokens.id, id))
        .returning({ id: apiTokens.id }),
    ),
  );
}
