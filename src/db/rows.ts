/**
 * The one row a statement that must produce one gave back: an `INSERT ... RETURNING`, an
 * `UPDATE ... RETURNING` of a row the caller holds, a `SELECT` of a row just written or an
 * aggregate. Throws, naming the statement (`what`), if it gave none, rather than let an
 * `undefined` pass on as a row.
 */
export function firstRow<R>(rows: readonly R[], what: string): R {
  const [row] = rows;
  if (row === undefined) throw new Error(`${what}: the statement returned no row`);
  return row;
}
