import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { productRow } from '@sluice/testkit';

/** Product i as the v4 service sends it and `sluice export` writes it to NDJSON. */
export function expectedProduct(i: number): Record<string, unknown> {
  const r = productRow(i);
  return {
    ID: r.ID,
    Name: r.Name,
    Description: r.Description,
    Price: (r.PriceCents / 100).toFixed(2),
    Stock: r.Stock,
    Rating: r.Rating,
    Active: r.Active,
    ReleaseDate: new Date(r.ReleaseMs).toISOString().replace('.000Z', 'Z'),
    Guid: r.Guid,
    CategoryID: r.CategoryID,
  };
}

/** Rows of an RFC 4180 CSV text (quoted cells, doubled quotes, CRLF line ends). */
export function parseCSV(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && cell === '') {
      const end = text.indexOf('"', i + 1);
      let j = i + 1;
      let quoted = '';
      for (let k = end; ; k = text.indexOf('"', j)) {
        quoted += text.slice(j, k);
        if (text[k + 1] === '"') { quoted += '"'; j = k + 2; continue; }
        i = k + 1;
        break;
      }
      cell = quoted;
      continue;
    }
    if (c === ',') { row.push(cell); cell = ''; i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i += 2; continue; }
    cell += c;
    i++;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

/** A promise resolved the first time `test` accepts a request, with an `authorize` hook that lets every request through. */
export function whenRequest(test: (url: string) => boolean): { seen: Promise<void>; authorize: (req: { url?: string }) => boolean } {
  let resolve!: () => void;
  const seen = new Promise<void>((r) => { resolve = r; });
  return { seen, authorize: (req) => { if (test(req.url ?? '')) resolve(); return true; } };
}

/** A port on 127.0.0.1 that nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The sign-in URL a `sluice` child started with `--auth-url --no-browser` prints on stderr. */
export function signInURL(child: ChildProcess): Promise<string> {
  let seen = '';
  return new Promise<string>((resolve) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /^\s+(http:\/\/\S+\/auth\?\S+)$/m.exec(seen);
      if (m) resolve(m[1]!);
    });
  });
}
