// Orders and OrderLines as v4 JSON (with @odata.etag) and v2 verbose JSON (with __metadata.etag).
import { NAMESPACE } from '../model.js';
import { LINE_FIELDS, ORDER_FIELDS, writeValue, type Dialect, type OrderRecord, type OrderStore, type Stored } from './orders.js';

function props(fields: typeof ORDER_FIELDS, values: Stored, d: Dialect): string[] {
  return fields.map((f) => `${JSON.stringify(f.name)}:${writeValue(f, values[f.name] ?? null, d)}`);
}

function lineJson(line: Stored, d: Dialect, root: string): string {
  const parts = props(LINE_FIELDS, line, d);
  if (d.version === 2) {
    const uri = JSON.stringify(`${root}OrderLines(${line['ID']})`);
    parts.unshift(`"__metadata":{"id":${uri},"uri":${uri},"type":"${NAMESPACE}.OrderLine"}`);
  }
  return `{${parts.join(',')}}`;
}

/** One order's JSON object (no envelope); `expand` inlines its lines. */
export function orderJson(store: OrderStore, order: OrderRecord, d: Dialect, root: string, expand: boolean): string {
  const parts = props(ORDER_FIELDS, order.values, d);
  const etag = JSON.stringify(store.etag(order));
  const lines = (): string => order.lines.map((id) => lineJson(store.lines.get(id)!, d, root)).join(',');
  if (d.version === 4) {
    parts.unshift(`"@odata.etag":${etag}`);
    if (expand) parts.push(`"Lines":[${lines()}]`);
  } else {
    const uri = JSON.stringify(`${root}Orders(${order.values['ID']})`);
    parts.unshift(`"__metadata":{"id":${uri},"uri":${uri},"type":"${NAMESPACE}.Order","etag":${etag}}`);
    parts.push(expand ? `"Lines":{"results":[${lines()}]}` : `"Lines":{"__deferred":{"uri":${uri.slice(0, -1)}/Lines"}}`);
  }
  return `{${parts.join(',')}}`;
}

/** A single order response body: v4 with its context, v2 wrapped in `d`. */
export function orderEntityBody(store: OrderStore, order: OrderRecord, d: Dialect, root: string, expand: boolean): string {
  const json = orderJson(store, order, d, root, expand);
  if (d.version === 2) return `{"d":${json}}`;
  return `{"@odata.context":${JSON.stringify(`${root}$metadata#Orders/$entity`)},${json.slice(1)}`;
}

/** A collection of orders or lines, with `@odata.count` / `__count` when `count` is given. */
export function collectionBody(items: string[], d: Dialect, root: string, set: string, count?: number): string {
  if (d.version === 2) return `{"d":{${count === undefined ? '' : `"__count":"${count}",`}"results":[${items.join(',')}]}}`;
  return `{"@odata.context":${JSON.stringify(`${root}$metadata#${set}`)},${count === undefined ? '' : `"@odata.count":${count},`}"value":[${items.join(',')}]}`;
}

/** The lines of an order, or every line, as JSON objects. */
export function linesJson(store: OrderStore, ids: Iterable<number>, d: Dialect, root: string): string[] {
  return [...ids].map((id) => lineJson(store.lines.get(id)!, d, root));
}
