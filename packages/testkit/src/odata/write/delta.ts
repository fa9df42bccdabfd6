// Delta reads of Orders, in pages of two. OData v4 (4.01 Part 1 section 11.3): `Prefer:
// odata.track-changes` on a full read gives `@odata.deltaLink` (`$deltatoken=`); reading it gives the
// orders changed since and removals (`@odata.removed`, 4.01 `@removed`). OData v2 as SAP Gateway does it:
// the last page's `d.__delta` link carries `!deltatoken='<n>'`; removals are entries in `d.results` marked
// as `$deletedEntity` with an `id` (the JSON form Apache Olingo's v2 library writes for tombstones).
// v4 delta reads also report the Lines links of orders: added by a deep insert (`$link`), removed with the
// order (`$deletedLink`), after the entities (JSON Format 4.0 sections 15.6, 15.7; 4.01 `@context`).
import { badRequest, ODataServerError } from '../errors.js';
import { prefers, reply, type Exchange } from './exchange.js';
import { orderJson } from './order-json.js';
import type { OrderStore } from './orders.js';

const PAGE = 2;

/** How a delta page is written in one OData version. */
interface DeltaForm {
  readonly tokenParam: string;
  link(token: number, skip?: number): string;
  removed(ref: string, id: number): string;
  /** An added or deleted link, or undefined where the version has none (v2). */
  navLink?(source: string, target: string, added: boolean): string;
  body(items: string[], tail: { next?: string; delta?: string }): string;
}

function formOf(x: Exchange, byKey: boolean): DeltaForm {
  const context = JSON.stringify(`${x.root}$metadata#Orders/$delta`);
  if (x.version === 2) {
    return {
      tokenParam: '!deltatoken',
      link: (token, skip) => `${x.root}Orders?!deltatoken='${token}'${skip === undefined ? '' : `&$skiptoken=${skip}`}`,
      removed: (ref) => `{"@odata.context":${JSON.stringify(`${x.root}$metadata#Orders/$deletedEntity`)},"id":${JSON.stringify(ref)},"reason":"deleted"}`,
      body: (items, tail) => `{"d":{"results":[${items.join(',')}]${tail.next ? `,"__next":${JSON.stringify(tail.next)}` : ''}${tail.delta ? `,"__delta":${JSON.stringify(tail.delta)}` : ''}}}`,
    };
  }
  const v401 = /4\.01/.test(String(x.req.headers['odata-maxversion'] ?? ''));
  return {
    tokenParam: '$deltatoken',
    link: (token, skip) => `${x.root}Orders?$deltatoken=${token}${skip === undefined ? '' : `&$skiptoken=${skip}`}`,
    removed: (ref, id) => {
      // The 4.01 form by key, whatever OData-MaxVersion asked for (servers that answer 4.01 to 4.0 clients).
      if (byKey) return `{"@removed":{"reason":"deleted"},"ID":${id}}`;
      return v401 ? `{"@removed":{"reason":"deleted"},"@id":${JSON.stringify(ref)}}` : `{"@odata.removed":{"reason":"deleted"},"@odata.id":${JSON.stringify(ref)}}`;
    },
    navLink: (source, target, added) => {
      const kind = added ? '$link' : '$deletedLink';
      const ctx = v401 ? `"@context":${JSON.stringify(`#Orders/${kind}`)}` : `"@odata.context":${JSON.stringify(`${x.root}$metadata#Orders/${kind}`)}`;
      return `{${ctx},"source":${JSON.stringify(source)},"relationship":"Lines","target":${JSON.stringify(target)}}`;
    },
    body: (items, tail) => `{"@odata.context":${context},"value":[${items.join(',')}],${tail.next ? `"@odata.nextLink":${JSON.stringify(tail.next)}` : `"@odata.deltaLink":${JSON.stringify(tail.delta)}`}}`,
  };
}

/** The next page of a paged full read: `track-<change the read began at>-<last key sent>`. */
const FULL_READ_PAGE = /^track-(\d+)-(-?\d+)$/;

/** Answers a GET of Orders when it asks for change tracking or carries a delta token; false otherwise. */
export async function deltaRead(x: Exchange, store: OrderStore, removalsByKey = false, fullReadPageSize?: number): Promise<boolean> {
  const form = formOf(x, removalsByKey);
  const params = new URLSearchParams(x.search);
  const token = params.get(form.tokenParam)?.replace(/^'(.*)'$/, '$1') ?? null;
  const resumed = FULL_READ_PAGE.exec(params.get('$skiptoken') ?? '');
  if (token === null && resumed === null && !prefers(x, 'odata.track-changes')) return false;
  // Change tracking here is of the whole set: a query that narrows it is refused rather than answered as if it did not.
  for (const option of ['$filter', '$orderby', '$top', '$skip', '$search']) {
    if (params.has(option)) throw badRequest(`${option} is not supported on a change-tracking read of Orders by this test server`, option);
  }
  if (token === null) {
    const began = resumed ? Number(resumed[1]) : store.seq;
    const after = resumed ? Number(resumed[2]) : -Infinity;
    const rest = [...store.orders.keys()].filter((id) => id > after).sort((a, b) => a - b);
    const page = fullReadPageSize === undefined ? rest : rest.slice(0, fullReadPageSize);
    const items = page.map((id) => orderJson(store, store.orders.get(id)!, x.dialect, x.root, false));
    const tail = page.length < rest.length ? { next: `${x.root}Orders?$skiptoken=track-${began}-${page.at(-1)!}` } : { delta: form.link(began) };
    await reply(x, 200, x.version === 4 && !resumed ? { 'preference-applied': 'odata.track-changes' } : {}, form.body(items, tail));
    return true;
  }
  const since = Number(token);
  if (!/^\d+$/.test(token) || !Number.isSafeInteger(since) || since < store.expiredBefore || since > store.seq) {
    throw new ODataServerError(410, 'Gone', `The delta token ${token} has expired: read the collection again`);
  }
  // The latest change of each order since the token, in change order, then of each link (v4).
  const latest = new Map<number, boolean>();
  const links = new Map<number, { order: number; added: boolean }>();
  for (const c of store.changes) {
    if (c.seq <= since) continue;
    if (c.link !== undefined) {
      links.delete(c.link);
      links.set(c.link, { order: c.id, added: !c.deleted });
    } else {
      latest.delete(c.id);
      latest.set(c.id, c.deleted);
    }
  }
  const link = form.navLink;
  const all: Array<() => string> = [...latest].map(([id, deleted]) => () => {
    if (!deleted && store.orders.has(id)) return orderJson(store, store.orders.get(id)!, x.dialect, x.root, false);
    return form.removed(`${x.root}Orders(${id})`, id);
  });
  if (link !== undefined) for (const [line, l] of links) all.push(() => link(`${x.root}Orders(${l.order})`, `${x.root}OrderLines(${line})`, l.added));
  const skip = Number(params.get('$skiptoken') ?? 0);
  const items = all.slice(skip, skip + PAGE).map((write) => write());
  const more = skip + PAGE < all.length;
  await reply(x, 200, {}, form.body(items, more ? { next: form.link(since, skip + PAGE) } : { delta: form.link(store.seq) }));
  return true;
}
