// Orders and OrderLines as v4 JSON (with @odata.etag) and v2 verbose JSON (with __metadata.etag).
import { NAMESPACE } from '../model.js';
import { LINE_FIELDS, writeValue, type Dialect, type FieldDef, type OrderRecord, type OrderStore, type Stored } from './orders.js';
import { SELECT_ALL, type WriteSelection } from './write-select.js';

function props(fields: readonly FieldDef[], values: Stored, d: Dialect): string[] {
  return fields.map((f) => `${JSON.stringify(f.name)}:${writeValue(f, values[f.name] ?? null, d)}`);
}

function lineJson(line: Stored, d: Dialect, root: string, fields: readonly FieldDef[]): string {
  const parts = props(fields, line, d);
  if (d.version === 2) {
    const uri = JSON.stringify(`${root}OrderLines(${line['ID']})`);
    parts.unshift(`"__metadata":{"id":${uri},"uri":${uri},"type":"${NAMESPACE}.OrderLine"}`);
  }
  return `{${parts.join(',')}}`;
}

/** One order's JSON object (no envelope) with the fields `sel` keeps; `expand` inlines its lines. */
export function orderJson(store: OrderStore, order: OrderRecord, d: Dialect, root: string, expand: boolean, sel: WriteSelection = SELECT_ALL): string {
  const parts = props(sel.fields, order.values, d);
  const etag = JSON.stringify(store.etag(order));
  const lines = (): string => order.lines.map((id) => lineJson(store.lines.get(id)!, d, root, sel.lineFields)).join(',');
  if (d.version === 4) {
    parts.unshift(`"@odata.etag":${etag}`);
    if (expand) parts.push(`"Lines":[${lines()}]`);
  } else {
    const uri = JSON.stringify(`${root}Orders(${order.values['ID']})`);
    parts.unshift(`"__metadata":{"id":${uri},"uri":${uri},"type":"${NAMESPACE}.Order","etag":${etag}}`);
    if (expand) parts.push(`"Lines":{"results":[${lines()}]}`);
    else if (sel.deferredLines) parts.push(`"Lines":{"__deferred":{"uri":${uri.slice(0, -1)}/Lines"}}`);
  }
  return `{${parts.join(',')}}`;
}

/** A single order response body: v4 with its context, v2 wrapped in `d`. */
export function orderEntityBody(store: OrderStore, order: OrderRecord, d: Dialect, root: string, expand: boolean, sel: WriteSelection = SELECT_ALL): string {
  const json = orderJson(store, order, d, root, expand, sel);
  if (d.version === 2) return `{"d":${json}}`;
  return `{"@odata.context":${JSON.stringify(`${root}$metadata#${contextOf('Orders', sel)}/$entity`)},${json.slice(1)}`;
}

/** The v4 context URL's fragment of `set` under `sel`: `Orders`, `Orders(ID,Customer)`. */
function contextOf(set: string, sel: WriteSelection): string {
  return sel.context === undefined ? set : `${set}(${sel.context})`;
}

/** A collection of orders or lines, with `@odata.count` / `__count` when `count` is given. */
export function collectionBody(items: string[], d: Dialect, root: string, set: string, count?: number, sel: WriteSelection = SELECT_ALL): string {
  if (d.version === 2) return `{"d":{${count === undefined ? '' : `"__count":"${count}",`}"results":[${items.join(',')}]}}`;
  return `{"@odata.context":${JSON.stringify(`${root}$metadata#${contextOf(set, sel)}`)},${count === undefined ? '' : `"@odata.count":${count},`}"value":[${items.join(',')}]}`;
}

/** The lines of an order, or every line, as JSON objects with `fields`. */
export function linesJson(store: OrderStore, ids: Iterable<number>, d: Dialect, root: string, fields: readonly FieldDef[] = LINE_FIELDS): string[] {
  return [...ids].map((id) => lineJson(store.lines.get(id)!, d, root, fields));
}
