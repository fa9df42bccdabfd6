// sluice clients on the interop CAP service: no core retries (a failure must show, not be retried away).
import { createODataClient, type ODataClient, type ODataClientOptions } from '@sluice/odata';
import type { CapServer } from './cap-server.js';

export type ClientExtra = Omit<Partial<ODataClientOptions>, 'serviceURL'>;

export function v4Client(cap: CapServer, extra: ClientExtra = {}): ODataClient {
  return createODataClient({ serviceURL: cap.v4, version: '4.0', ...extra, http: { retry: false, timeout: 30_000, ...extra.http } });
}

export function v2Client(cap: CapServer, extra: ClientExtra = {}): ODataClient {
  return createODataClient({ serviceURL: cap.v2, version: '2.0', ...extra, http: { retry: false, timeout: 30_000, ...extra.http } });
}

/** Raw GET (for pinning what the server itself answers, beside what sluice makes of it). */
export async function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

export interface Supplier { ID: number; name: string; city: string; since: string | Date; parts?: Part[] }
export interface Part {
  ID: number; name: string; supplier_ID: number; price: string; stock: string; releasedAt: string | Date;
  modifiedAt: string | Date; supplier?: Supplier; notes?: Note[];
}
export interface Note { ID: string; text: string; part_ID: number; part?: Part }
export interface Bin { plant: string; number: number; label: string; part_ID: number; part?: Part }
export interface Reading { seq: number; value: string; at: string | Date }
