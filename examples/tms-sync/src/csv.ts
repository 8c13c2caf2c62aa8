/**
 * A small CSV reader (RFC 4180: quoted fields, doubled quotes, CRLF or LF) returning one record per
 * row keyed by the header row. Enough for an export from a TMS; use a library for anything larger.
 */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);

  const [header, ...records] = rows;
  if (!header) return [];
  return records.map((values) =>
    Object.fromEntries(header.map((name, i) => [name.trim(), values[i]?.trim() ?? ''])),
  );
}
