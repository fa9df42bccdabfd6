// Shared helpers of the OData test server's own tests: plain fetch reads that follow next links, and a raw GET.
import { request as httpGet } from 'node:http';
import { expect } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed bodies are inspected freely
export type Json = Record<string, any>;

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Json }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as Json };
}

/** Follows v4 next links from `url`, returning every row and the pages' URLs. */
export async function allV4(url: string, headers: Record<string, string> = {}): Promise<{ rows: Json[]; urls: string[]; pages: Json[] }> {
  const rows: Json[] = [];
  const urls: string[] = [];
  const pages: Json[] = [];
  for (let next: string | undefined = url; next !== undefined;) {
    urls.push(next);
    const { status, body } = await getJson(next, headers);
    expect(status).toBe(200);
    pages.push(body);
    rows.push(...(body.value as Json[]));
    next = body['@odata.nextLink'] as string | undefined;
    if (urls.length > 10_000) throw new Error('runaway paging');
  }
  return { rows, urls, pages };
}

export async function allV2(url: string): Promise<{ rows: Json[]; urls: string[]; pages: Json[] }> {
  const rows: Json[] = [];
  const urls: string[] = [];
  const pages: Json[] = [];
  for (let next: string | undefined = url; next !== undefined;) {
    urls.push(next);
    const { status, body } = await getJson(next);
    expect(status).toBe(200);
    pages.push(body);
    rows.push(...(body.d.results as Json[]));
    next = body.d.__next as string | undefined;
  }
  return { rows, urls, pages };
}

export const ids = (rows: Json[]): number[] => rows.map((r) => r.ID as number);
export const range = (n: number): number[] => Array.from({ length: n }, (_, k) => k + 1);
export const enc = (s: string): string => encodeURIComponent(s);

/** A raw GET that reports status, headers, the body chunks as they arrived, and how the response ended. */
export function rawGet(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; chunks: Buffer[]; ended: 'end' | 'error' }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, (res) => {
      const chunks: Buffer[] = [];
      const done = (ended: 'end' | 'error') => resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, ended });
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done('end'));
      res.on('error', () => done('error'));
      res.on('aborted', () => done('error'));
    });
    req.on('error', reject);
    req.end();
  });
}
