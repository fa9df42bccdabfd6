// The clients bench/odata-peers.ts compares, each written as its user would: sluice's stream() and streamBatches(), hand loops on
// undici.Pool and on fetch (v2 with sluice's shaping: records at `d.results`, `__next`, `__metadata` dropped),
// the SAP Cloud SDK's generated v4 client (page by page with top/skip) and its raw request API following next
// links, and @odata/client (page by page with top/skip). Each reader hands every record to a RecordSink.
import { Pool } from 'undici';
import { createODataClient } from '../../packages/odata/src/index.js';
import { peerRequire } from './install.js';
import type { RecordSink } from './sink.js';

/** What a reader reads: the first `records` products of the test server, `pageSize` per page. */
export interface ReadJob {
  v4: string;
  v2: string;
  records: number;
  pageSize: number;
  /** index.js of the SAP client generated from the server's $metadata. */
  sapClient: string;
}

export interface Reader {
  read(sink: RecordSink): Promise<void>;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;
type V4Page = { value: Row[]; '@odata.nextLink'?: string };
type V2Page = { d: { results: Row[]; __next?: string } };

/** What sluice sends for v4, and the header the Pool loop sends too (so both get Int64 as strings). */
const ACCEPT_IEEE = 'application/json;odata.metadata=minimal;IEEE754Compatible=true';

function sluice(job: ReadJob, version: '4.0' | '2.0'): Reader {
  const od = createODataClient({ serviceURL: version === '4.0' ? job.v4 : job.v2, version, http: { retry: false } });
  return {
    async read(sink) {
      for await (const item of od.from<Row>('Products').top(job.records).stream()) {
        if (item.error) throw item.error;
        sink.add(item.value.ID as number, item.value.Stock);
      }
    },
    close: () => od.close(),
  };
}

/** sluice's streamBatches(): the same records in arrays, one per run of a body chunk. */
function sluiceBatches(job: ReadJob, version: '4.0' | '2.0'): Reader {
  const od = createODataClient({ serviceURL: version === '4.0' ? job.v4 : job.v2, version, http: { retry: false } });
  return {
    async read(sink) {
      for await (const batch of od.from<Row>('Products').top(job.records).streamBatches()) {
        if (batch.error) throw batch.error;
        for (const row of batch.value) sink.add(row.ID as number, row.Stock);
      }
    },
    close: () => od.close(),
  };
}

/** sluice's stream() collected into one array (`for await`), then handed to the sink. */
function sluiceCollect(job: ReadJob): Reader {
  const od = createODataClient({ serviceURL: job.v4, version: '4.0', http: { retry: false } });
  return {
    async read(sink) {
      const all: Row[] = [];
      for await (const item of od.from<Row>('Products').top(job.records).stream()) {
        if (item.error) throw item.error;
        all.push(item.value);
      }
      for (const r of all) sink.add(r.ID as number, r.Stock);
    },
    close: () => od.close(),
  };
}

/** A page getter: the hand loops differ only in this. */
type GetJSON = (url: string) => Promise<unknown>;

function handLoop(job: ReadJob, version: 4 | 2, get: GetJSON, close: () => Promise<void>): Reader {
  const first = `${version === 4 ? job.v4 : job.v2}Products?$top=${job.records}`;
  return {
    async read(sink) {
      let url: string | undefined = first;
      while (url) {
        if (version === 4) {
          const doc = (await get(url)) as V4Page;
          for (const r of doc.value) sink.add(r.ID as number, r.Stock);
          url = doc['@odata.nextLink'];
        } else {
          const doc = (await get(url)) as V2Page;
          for (const r of doc.d.results) {
            delete r.__metadata;
            sink.add(r.ID as number, r.Stock);
          }
          url = doc.d.__next;
        }
      }
    },
    close,
  };
}

function poolLoop(job: ReadJob, version: 4 | 2): Reader {
  const pool = new Pool(new URL(job.v4).origin);
  const accept = version === 4 ? ACCEPT_IEEE : 'application/json';
  const get: GetJSON = async (url) => {
    const u = new URL(url);
    const res = await pool.request({ method: 'GET', path: u.pathname + u.search, headers: { accept } });
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode} from ${url}`);
    return JSON.parse(await res.body.text());
  };
  return handLoop(job, version, get, () => pool.close());
}

/** A plain fetch loop as most code reads JSON: `accept: application/json` and `res.json()`. */
function fetchLoop(job: ReadJob, version: 4 | 2): Reader {
  const get: GetJSON = async (url) => {
    const res = await fetch(url, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
    return res.json();
  };
  return handLoop(job, version, get, async () => {});
}

interface SapEntity { id: number; stock: unknown }
interface SapRequest { top(n: number): SapRequest; skip(n: number): SapRequest; execute(dest: { url: string }): Promise<SapEntity[]> }
type SapProducts = { requestBuilder(): { getAll(): SapRequest } };
interface SapClient { demo(): { productsApi: SapProducts } }
type ExecuteHttpRequest = (dest: { url: string }, config: { method: string; url: string }) => Promise<{ data: V4Page }>;

/** The destination: the service root without its trailing slash (the generated client's base path is "/"). */
const destination = (job: ReadJob): { url: string } => ({ url: job.v4.replace(/\/$/, '') });

/** The SAP SDK's generated client, page by page with top/skip (its getAll() alone stops after the server's first page). */
async function* sapPages(productsApi: SapProducts, job: ReadJob): AsyncGenerator<SapEntity[]> {
  const dest = destination(job);
  for (let skip = 0; skip < job.records; skip += job.pageSize) {
    const page = await productsApi.requestBuilder().getAll().top(Math.min(job.pageSize, job.records - skip)).skip(skip).execute(dest);
    if (page.length === 0) return;
    yield page;
  }
}

/** The SAP SDK's generated client, each top/skip page handed to the sink. */
function sapTyped(job: ReadJob): Reader {
  const { productsApi } = (peerRequire(job.sapClient) as SapClient).demo();
  return {
    async read(sink) {
      for await (const page of sapPages(productsApi, job)) for (const p of page) sink.add(p.id, p.stock);
    },
    close: async () => {},
  };
}

/** The SAP SDK's generated client, top/skip pages concatenated into one array, then handed to the sink. */
function sapCollect(job: ReadJob): Reader {
  const { productsApi } = (peerRequire(job.sapClient) as SapClient).demo();
  return {
    async read(sink) {
      const all: SapEntity[] = [];
      for await (const page of sapPages(productsApi, job)) all.push(...page);
      for (const p of all) sink.add(p.id, p.stock);
    },
    close: async () => {},
  };
}

/** The SAP SDK's generated client as its documentation shows a read of all records: one `getAll().execute()`. */
function sapGetAll(job: ReadJob): Reader {
  const { productsApi } = (peerRequire(job.sapClient) as SapClient).demo();
  return {
    async read(sink) {
      for (const p of await productsApi.requestBuilder().getAll().execute(destination(job))) sink.add(p.id, p.stock);
    },
    close: async () => {},
  };
}

/** The SAP SDK's raw request API (`executeHttpRequest`, JSON left as parsed), following the server's next links. */
function sapRaw(job: ReadJob): Reader {
  const { executeHttpRequest } = peerRequire('@sap-cloud-sdk/http-client') as { executeHttpRequest: ExecuteHttpRequest };
  const origin = { url: new URL(job.v4).origin };
  return {
    async read(sink) {
      let url: string | undefined = `${new URL(job.v4).pathname}Products?$top=${job.records}`;
      while (url) {
        const { data } = await executeHttpRequest(origin, { method: 'get', url });
        for (const r of data.value) sink.add(r.ID as number, r.Stock);
        const next = data['@odata.nextLink'];
        url = next === undefined ? undefined : new URL(next, job.v4).pathname + new URL(next, job.v4).search;
      }
    },
    close: async () => {},
  };
}

interface ODataClientLib {
  OData: { New4(o: { serviceEndpoint: string }): { getEntitySet(name: string): { newOptions(): TopSkip; query(o: TopSkip): Promise<Row[]> } } };
}
interface TopSkip { top(n: number): TopSkip; skip(n: number): TopSkip }

/** @odata/client (v4), page by page with top/skip through its EntitySet API. */
function odataClient(job: ReadJob): Reader {
  const { OData } = peerRequire('@odata/client') as ODataClientLib;
  const products = OData.New4({ serviceEndpoint: job.v4 }).getEntitySet('Products');
  return {
    async read(sink) {
      for (let skip = 0; skip < job.records; skip += job.pageSize) {
        const page = await products.query(products.newOptions().top(Math.min(job.pageSize, job.records - skip)).skip(skip));
        if (page.length === 0) break;
        for (const r of page) sink.add(r.ID as number, r.Stock);
      }
    },
    close: async () => {},
  };
}

/** The contenders by key: label, protocol, and how to open one. */
export const READERS = {
  'sluice-v4': { label: 'sluice `stream()`', protocol: 'v4', open: (j: ReadJob) => sluice(j, '4.0') },
  'sluice-v4-batches': { label: 'sluice `streamBatches()`', protocol: 'v4', open: (j: ReadJob) => sluiceBatches(j, '4.0') },
  'pool-v4': { label: 'hand loop: `undici.Pool` + JSON.parse + nextLink', protocol: 'v4', open: (j: ReadJob) => poolLoop(j, 4) },
  'fetch-v4': { label: 'hand loop: `fetch` + `res.json()` + nextLink', protocol: 'v4', open: (j: ReadJob) => fetchLoop(j, 4) },
  'sap-typed': { label: 'SAP Cloud SDK, generated client, top/skip pages', protocol: 'v4', open: sapTyped },
  'sap-getall': { label: 'SAP Cloud SDK, generated client, one `getAll()`', protocol: 'v4', open: sapGetAll },
  'sap-raw': { label: 'SAP Cloud SDK, `executeHttpRequest` + nextLink', protocol: 'v4', open: sapRaw },
  'sluice-collect': { label: 'sluice `stream()`, `for await` into an array', protocol: 'v4', open: sluiceCollect },
  'sap-collect': { label: 'SAP Cloud SDK, generated client, top/skip pages into an array', protocol: 'v4', open: sapCollect },
  'odata-client': { label: '`@odata/client`, top/skip pages', protocol: 'v4', open: odataClient },
  'sluice-v2': { label: 'sluice `stream()`', protocol: 'v2', open: (j: ReadJob) => sluice(j, '2.0') },
  'sluice-v2-batches': { label: 'sluice `streamBatches()`', protocol: 'v2', open: (j: ReadJob) => sluiceBatches(j, '2.0') },
  'pool-v2': { label: 'hand loop: `undici.Pool`, v2 shaping', protocol: 'v2', open: (j: ReadJob) => poolLoop(j, 2) },
  'fetch-v2': { label: 'hand loop: `fetch`, v2 shaping', protocol: 'v2', open: (j: ReadJob) => fetchLoop(j, 2) },
} as const;

export type ReaderKey = keyof typeof READERS;
