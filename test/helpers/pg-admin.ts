import type pg from 'pg';

export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(admin: pg.Client, name: string) {
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}
