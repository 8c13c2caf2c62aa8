import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` diffs the module tables against migrations/meta and writes a new
// migration. Migrations are committed and append-only; `npm start` applies them.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/modules/*/*-tables.ts', './src/http/*-tables.ts'],
  out: './migrations',
});
