// The ratio chart of bench/RESULTS.md: one horizontal bar per peer, its client CPU per operation divided by
// sluice's in the same run, on a log scale (1.00 = as cheap as sluice; to the right sluice costs less).
// Hand-written SVG, no dependency. Suites hand over ratios directly, or run.ts reads them from a table.

export interface ChartRatio {
  /** The comparison, e.g. "OData v4, pages of 1,000" or "Core GET". */
  group: string;
  /** The peer sluice is compared with. */
  peer: string;
  /** Peer client CPU per operation / sluice's (above 1: sluice is cheaper). */
  ratio: number;
  /** sluice's operations/s / the peer's, when measured. */
  throughput?: number;
  /** A correctness finding shown beside the bar, e.g. "1000 of 2000 Int64 wrong". */
  note?: string;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Reads ratios from a Markdown table with a `client` column and a `CPU per …` column (µs), against its `sluice` row. */
export function ratiosFromTable(markdown: string, group: string): ChartRatio[] {
  const rows = markdown.split('\n').filter((l) => l.startsWith('|')).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
  const header = rows.find((r) => r[0] === 'client' && r.some((c) => /CPU per/.test(c)));
  if (!header) return [];
  const col = header.findIndex((c) => /CPU per/.test(c));
  const start = rows.indexOf(header) + 2;
  const body: string[][] = [];
  for (let i = start; i < rows.length && rows[i]!.length === header.length; i++) body.push(rows[i]!);
  const cpu = (r: string[]): number => Number.parseFloat((r[col] ?? '').replace(/,/g, ''));
  const sluice = body.find((r) => r[0] === 'sluice');
  if (!sluice || !(cpu(sluice) > 0)) return [];
  return body
    .filter((r) => !r[0]!.startsWith('sluice') && cpu(r) > 0)
    .map((r) => ({ group: `${group}: ${header[col]}`, peer: r[0]!.replace(/`/g, ''), ratio: cpu(r) / cpu(sluice) }));
}

/** The SVG chart of `ratios`, grouped in the order the groups first appear. */
export function ratioChart(ratios: ChartRatio[], subtitle: string): string {
  const groups = [...new Set(ratios.map((r) => r.group))];
  const rowH = 22;
  const groupH = 26;
  const left = 330;
  const plotW = 460;
  const top = 64;
  const height = top + groups.length * groupH + ratios.length * rowH + 40;
  const width = left + plotW + (ratios.some((r) => r.note) ? 230 : 90);
  const lo = Math.min(0.5, ...ratios.map((r) => r.ratio));
  const hi = Math.max(2, ...ratios.map((r) => r.ratio));
  const l0 = Math.log10(lo) - 0.05;
  const l1 = Math.log10(hi) + 0.05;
  const x = (v: number): number => left + ((Math.log10(v) - l0) / (l1 - l0)) * plotW;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">Client CPU per operation of each peer ÷ sluice's (log scale; right of 1 = sluice cheaper)</text>`,
    `<text x="12" y="42" fill="#555">${esc(subtitle)}</text>`,
  ];
  const ticks = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200].filter((t) => t >= 10 ** l0 && t <= 10 ** l1);
  const bottom = height - 30;
  for (const t of ticks) {
    out.push(`<line x1="${x(t).toFixed(1)}" y1="${top - 6}" x2="${x(t).toFixed(1)}" y2="${bottom}" stroke="${t === 1 ? '#333' : '#ddd'}"/>`);
    out.push(`<text x="${x(t).toFixed(1)}" y="${bottom + 16}" text-anchor="middle" fill="#555">${t}×</text>`);
  }
  let y = top;
  for (const group of groups) {
    out.push(`<text x="12" y="${y + 16}" font-weight="bold">${esc(group)}</text>`);
    y += groupH;
    for (const r of ratios.filter((q) => q.group === group)) {
      const x1 = x(1);
      const xv = x(r.ratio);
      const color = r.ratio >= 1 ? '#2e7d32' : '#e65100';
      out.push(`<text x="${left - 8}" y="${y + 14}" text-anchor="end">${esc(r.peer)}</text>`);
      out.push(`<rect x="${Math.min(x1, xv).toFixed(1)}" y="${y + 3}" width="${Math.max(1, Math.abs(xv - x1)).toFixed(1)}" height="${rowH - 8}" fill="${color}"/>`);
      out.push(`<text x="${(Math.max(x1, xv) + 6).toFixed(1)}" y="${y + 14}" fill="#333">${r.ratio.toFixed(2)}×` +
        `${r.note ? `<tspan dx="8" fill="#c62828">${esc(r.note)}</tspan>` : ''}</text>`);
      y += rowH;
    }
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}
