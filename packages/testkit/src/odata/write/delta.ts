// Delta reads of Orders (OData 4.01 Part 1 section 11.3): `Prefer: odata.track-changes` on a full read
// gives a delta link; reading it gives the orders changed since, and removals, in pages of two.
import { ODataServerError } from '../errors.js';
import { prefers, reply, type Exchange } from './exchange.js';
import { orderJson } from './order-json.js';
import type { OrderStore } from './orders.js';

const PAGE = 2;

/** Answers a GET of Orders when it asks for change tracking or carries a `$deltatoken`; false otherwise. */
export async function deltaRead(x: Exchange, store: OrderStore): Promise<boolean> {
  if (x.version !== 4) return false;
  const params = new URLSearchParams(x.search);
  const token = params.get('$deltatoken');
  if (token === null && !prefers(x, 'odata.track-changes')) return false;
  const context = JSON.stringify(`${x.root}$metadata#Orders/$delta`);
  const deltaLink = JSON.stringify(`${x.root}Orders?$deltatoken=${store.seq}`);
  if (token === null) {
    const items = [...store.orders.values()].map((o) => orderJson(store, o, x.dialect, x.root, false));
    await reply(x, 200, { 'preference-applied': 'odata.track-changes' }, `{"@odata.context":${context},"value":[${items.join(',')}],"@odata.deltaLink":${deltaLink}}`);
    return true;
  }
  const since = Number(token);
  if (!Number.isSafeInteger(since) || since < store.expiredBefore || since > store.seq) {
    throw new ODataServerError(410, 'Gone', `The delta token ${token} has expired: read the collection again`);
  }
  // The latest change of each order since the token, in change order.
  const latest = new Map<number, boolean>();
  for (const c of store.changes) if (c.seq > since) { latest.delete(c.id); latest.set(c.id, c.deleted); }
  const all = [...latest];
  const skip = Number(params.get('$skiptoken') ?? 0);
  const page = all.slice(skip, skip + PAGE);
  const v401 = /4\.01/.test(String(x.req.headers['odata-maxversion'] ?? ''));
  const items = page.map(([id, deleted]) => {
    if (!deleted && store.orders.has(id)) return orderJson(store, store.orders.get(id)!, x.dialect, x.root, false);
    const ref = JSON.stringify(`${x.root}Orders(${id})`);
    return v401 ? `{"@removed":{"reason":"deleted"},"@id":${ref}}` : `{"@odata.removed":{"reason":"deleted"},"@odata.id":${ref}}`;
  });
  const more = skip + PAGE < all.length;
  const tail = more ? `"@odata.nextLink":${JSON.stringify(`${x.root}Orders?$deltatoken=${since}&$skiptoken=${skip + PAGE}`)}` : `"@odata.deltaLink":${deltaLink}`;
  await reply(x, 200, {}, `{"@odata.context":${context},"value":[${items.join(',')}],${tail}}`);
  return true;
}
