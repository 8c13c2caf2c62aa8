import { describe, expect, it } from 'vitest';
import { outlineJson, PiecedText } from '../../src/http/json-outline.js';

/**
 * A JSON body read from the pieces it was decoded in is outlined exactly as the same text in one
 * piece: wherever the cuts fall (inside a string, between a backslash and what it escapes, on a
 * separator), the members, elements and depth are the same, and so is the refusal of text that is
 * not one JSON object. Each piece's text, taken by its positions, is the same too.
 */
const texts = [
  '{}',
  '{"loads":[ ],"x":1}',
  '{ "loads" : [ {"a":1,"b":[1,2,{"c":"]},[{"}]}, "s\\"q,\\\\", 3, null, true ] , "k" : {"n":[1,[2,[3]]]} }',
  '{"a":"\\\\\\"","b":["\\\\",{"x":"\\"]"}]}',
  '\n {"trailing":"space"} \n',
  '{"open":"never closed}',
  '{"a":1}{"b":2}',
  '[1,2]',
  '{"a":[1,2}',
  '{"esc":"\\\\"}',
];

async function outlineWithTexts(pieces: readonly string[]) {
  const text = new PiecedText(pieces);
  const outline = await outlineJson(text);
  if (!outline) return null;
  return outline.members.map((m) => ({
    key: text.slice(...m.key),
    value: text.slice(...m.value),
    elements: m.elements?.map((e) => text.slice(...e)) ?? null,
    depth: outline.depth,
  }));
}

describe('JSON outlined from its pieces', () => {
  it.each(texts)('outlines %s alike wherever it is cut', async (text) => {
    const whole = await outlineWithTexts([text]);
    expect(whole === null).toBe(
      ['{"open":"never closed}', '{"a":1}{"b":2}', '[1,2]', '{"a":[1,2}'].includes(text),
    );
    for (let a = 0; a <= text.length; a++) {
      for (let b = a; b <= text.length; b++) {
        const pieces = [text.slice(0, a), text.slice(a, b), text.slice(b)].filter((p) => p !== '');
        expect(await outlineWithTexts(pieces), JSON.stringify(pieces)).toEqual(whole);
      }
    }
  });

  it('reads characters and slices across pieces', () => {
    const text = new PiecedText(['ab', 'cde', 'f']);
    expect(text.length).toBe(6);
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => String.fromCharCode(text.charCodeAt(i) || 63)).join('')).toBe(
      'abcdef?',
    );
    expect(text.slice(1, 5)).toBe('bcde');
    expect(text.slice(5, 6)).toBe('f');
    expect(text.slice(0, 0)).toBe('');
    expect(text.charCodeAt(0)).toBe(97);
  });
});
