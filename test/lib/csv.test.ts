import { describe, expect, it } from 'vitest';
import { parseCsv, parseCsvCooperatively } from '../../src/lib/csv.js';
import { defined } from '../../src/lib/defined.js';

describe('CSV parsing', () => {
  const cases: [string, string, string[][]][] = [
    [
      'plain rows, LF and CRLF',
      'a,b\r\nc,d\ne,f',
      [
        ['a', 'b'],
        ['c', 'd'],
        ['e', 'f'],
      ],
    ],
    [
      'a byte-order mark and blank lines',
      '\uFEFFa,b\n\n\r\nc,d\n',
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
    [
      'quoted commas, line breaks and doubled quotes',
      '"x, y","line\nbreak","say ""hi"""\n',
      [['x, y', 'line\nbreak', 'say "hi"']],
    ],
    [
      'empty cells and a trailing comma',
      'a,,c\nd,',
      [
        ['a', '', 'c'],
        ['d', ''],
      ],
    ],
    ['a quote inside an unquoted cell is text', 'ab"c,d', [['ab"c', 'd']]],
    ['text after a closing quote belongs to the cell', '"ab"cd,e', [['abcd', 'e']]],
    [
      'an unterminated quoted field runs to the end',
      'name\n"open, never\nclosed',
      [['name'], ['open, never\nclosed']],
    ],
  ];
  for (const [name, text, rows] of cases) {
    it(name, async () => {
      expect(parseCsv(text)).toEqual(rows);
      expect(await parseCsvCooperatively(text)).toEqual(rows);
    });
    it(`${name}, in pieces cut anywhere`, async () => {
      for (let a = 0; a <= text.length; a++) {
        for (let b = a; b <= text.length; b++) {
          const pieces = [text.slice(0, a), text.slice(a, b), text.slice(b)];
          expect(await parseCsvCooperatively(pieces), JSON.stringify(pieces)).toEqual(rows);
        }
      }
    });
  }

  it('reads the same rows from any cut of text mixing every rule', async () => {
    const text = '\uFEFFa,"b""c"x,\r\n\r\n"q,\r\nr",""\r"open""';
    const rows = parseCsv(text);
    expect(rows).toEqual([['a', 'b"cx', ''], ['q,\r\nr', ''], ['open"']]);
    for (let a = 0; a <= text.length; a++) {
      for (let b = a; b <= text.length; b++) {
        expect(await parseCsvCooperatively([text.slice(0, a), text.slice(a, b), text.slice(b)])).toEqual(
          rows,
        );
      }
    }
  });

  it('reads a 16 MiB unterminated quoted field as one cell', async () => {
    const text = `name\n"${'x'.repeat(16 * 1024 * 1024 - 7)}`;
    const rows = await parseCsvCooperatively(text);
    expect(rows).toHaveLength(2);
    expect(defined(defined(rows[1], 'rows[1]')[0], 'rows[1][0]').length).toBe(16 * 1024 * 1024 - 7);
  });

  it('reads a 16 MiB upload in 1 MiB pieces as it reads it whole', async () => {
    const text = Array.from({ length: 1000 }, (_, i) => `c${i},"${'y'.repeat(16000)}""${i}"`).join('\r\n');
    const pieces = Array.from({ length: Math.ceil(text.length / 2 ** 20) }, (_, k) =>
      text.slice(k * 2 ** 20, (k + 1) * 2 ** 20),
    );
    expect(await parseCsvCooperatively(pieces)).toEqual(parseCsv(text));
    expect(parseCsv(text)[999]).toEqual(['c999', `${'y'.repeat(16000)}"999`]);
  });
});
