import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/store/postgres/schema.ts', './src/store/postgres/cluster-schema.ts'],
  out: './drizzle/postgres',
});
