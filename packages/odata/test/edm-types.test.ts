import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EDM_PRIMITIVES, edmPrimitive, edmTsType, type EdmPrimitive } from '../src/index.js';

/** The README table, rendered from the data: the README must hold exactly this between its markers. */
function table(rows: readonly EdmPrimitive[]): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|');
  const lines = [
    '| EDM type | kind | bits | versions | TypeScript (default) | `largeNumbers: \'number\'` | `dates: \'Date\'` | value |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const p of rows) {
    const bits = p.bits === undefined ? '' : `${p.bits}${p.signed === false ? ' unsigned' : ''}`;
    lines.push(`| \`${p.name}\` | ${p.kind} | ${bits} | ${p.versions.join(', ')} | \`${cell(p.ts.default)}\` | ${p.ts.largeNumbers ? `\`${p.ts.largeNumbers}\`` : ''} | ${p.ts.dates ? `\`${p.ts.dates}\`` : ''} | ${cell(p.form)} |`);
  }
  return lines.join('\n');
}

describe('EDM primitive table', () => {
  it('is the table in the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const m = /<!-- edm-types:start -->\n([\s\S]*?)\n<!-- edm-types:end -->/.exec(readme);
    expect(m?.[1]).toBe(table(EDM_PRIMITIVES));
  });

  it('has one entry per name, every v2 and v4 primitive', () => {
    const names = EDM_PRIMITIVES.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of ['Boolean', 'Byte', 'SByte', 'Int16', 'Int32', 'Int64', 'Single', 'Double', 'Decimal', 'String', 'Guid', 'Binary',
      'DateTimeOffset', 'DateTime', 'Time', 'Date', 'TimeOfDay', 'Duration', 'Stream', 'GeographyPoint', 'GeometryMultiPolygon', 'Untyped']) {
      expect(edmPrimitive(`Edm.${n}`)?.name, n).toBe(`Edm.${n}`);
    }
    expect(edmPrimitive('Edm.DateTime')?.versions).toEqual(['2.0']);
    expect(edmPrimitive('Edm.Date')?.versions).toEqual(['4.0']);
  });

  it('looks up by qualified or bare name; other names are undefined', () => {
    expect(edmPrimitive('Int64')).toBe(edmPrimitive('Edm.Int64'));
    expect(edmPrimitive('Edm.Int64')).toMatchObject({ kind: 'integer', bits: 64, signed: true });
    expect(edmPrimitive('Edm.Byte')).toMatchObject({ bits: 8, signed: false });
    expect(edmPrimitive('Edm.Nope')).toBeUndefined();
    expect(edmPrimitive('Collection(Edm.String)')).toBeUndefined();
  });

  it('gives the TypeScript type under the options that change it', () => {
    expect(edmTsType('Edm.Int64')).toBe('string');
    expect(edmTsType('Edm.Decimal', { largeNumbers: 'number' })).toBe('number');
    expect(edmTsType('Edm.DateTimeOffset')).toBe('string');
    expect(edmTsType('Edm.DateTimeOffset', { dates: 'Date' })).toBe('Date');
    expect(edmTsType('Edm.DateTime', { dates: 'Date', largeNumbers: 'number' })).toBe('Date');
    expect(edmTsType('Edm.Date', { dates: 'Date' })).toBe('string');
    expect(edmTsType('Edm.Int32', { largeNumbers: 'number' })).toBe('number');
    expect(edmTsType('Demo.Address')).toBeUndefined();
  });
});
