// The CLI against SAP CAP 9 (OData v4) and its OData v2 adapter: the interop CAP service of
// packages/interop-cap (Readings: 5,000 rows, 250 a page), started in its own process.
import { beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, type SluiceCLI } from '@sluice/testkit';
import { useCapServer } from '../../interop-cap/test/support/cap-server.js';

const cap = useCapServer();
let cli: SluiceCLI;
beforeAll(async () => { cli = await sluiceCLI(); });

describe('sluice against SAP CAP', () => {
  it('exports all 5,000 rows of a v4 entity set across CAP\'s relative next links, in order', async () => {
    const r = await cli.run(['export', cap().v4, 'Readings', '--select', 'seq,value', '--orderby', 'seq']);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { seq: number; value: string });
    expect(rows.map((x) => x.seq)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(rows.every((x) => /^\d+\.\d{3}$/.test(x.value))).toBe(true);
    expect(r.stderr).toMatch(/^sluice: exported 5,000 records of Readings/);
  });

  it('exports CSV through the v2 adapter and counts with a filter', async () => {
    const r = await cli.run(['export', cap().v2, 'Readings', '-f', 'csv', '--select', 'seq,value', '--filter', 'seq le 3', '--orderby', 'seq', '-q']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\r\n');
    expect(lines[0]).toBe('seq,value');
    expect(lines.slice(1, 4).map((l) => l.split(',')[0])).toEqual(['1', '2', '3']);
    expect(lines[4]).toBe('');
    expect(await cli.run(['count', cap().v4, 'Readings', '--filter', 'seq gt 4990'])).toMatchObject({ code: 0, stdout: '10\n' });
  });

  it('lists CAP\'s entity sets, keys and navigation', async () => {
    const r = await cli.run(['metadata', cap().v4]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Parts\s+InteropService\.Parts\s+ID\s+\d+\s+supplier -> Suppliers, notes -> Notes\[\]$/m);
  });
});
