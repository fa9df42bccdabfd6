// OData v4 JSON payloads (OData JSON Format v4.01 sections 4, 7, 12, 15): collections with
// @odata.count and @odata.nextLink, single entities, and inline expanded navigation.
import { expandedRows } from './expand-rows.js';
import type { SetSizes } from './model.js';
import type { Projection } from './projection.js';

/** Renders one row to JSON text. */
export type RowWriter = (row: unknown) => string;

/** Builds a writer for rows of `proj`; `ieee` quotes Int64 and Decimal (JSON Format 3.2, IEEE754Compatible). */
export function rowWriterV4(proj: Projection, sizes: SetSizes, ieee: boolean): RowWriter {
  const props = proj.props.map((p) => ({ prefix: `"${p.name}":`, p }));
  const expands = proj.expands.map((plan) => ({ plan, write: rowWriterV4(plan.projection, sizes, ieee) }));
  return (row) => {
    let s = '{';
    for (let k = 0; k < props.length; k++) {
      const { prefix, p } = props[k] as (typeof props)[number];
      s += (k === 0 ? '' : ',') + prefix + p.v4(row, ieee);
    }
    for (const { plan, write } of expands) {
      const { rows, total } = expandedRows(plan, row, sizes);
      if (s.length > 1) s += ',';
      if (!plan.nav.many) { s += `"${plan.nav.name}":${rows[0] === undefined ? 'null' : write(rows[0])}`; continue; }
      if (plan.count) s += `"${plan.nav.name}@odata.count":${total},`;
      s += `"${plan.nav.name}":[${rows.map(write).join(',')}]`;
    }
    return `${s}}`;
  };
}

/** The context URL fragment after `#` for a collection of `setName` with this projection. */
export function contextFragment(setName: string, proj: Projection): string {
  const inner = selectList(proj);
  return inner === undefined ? setName : `${setName}(${inner})`;
}

function selectList(proj: Projection): string | undefined {
  const items: string[] = proj.selected ? proj.props.map((p) => p.name) : [];
  for (const e of proj.expands) items.push(`${e.nav.name}(${selectList(e.projection) ?? ''})`);
  if (!proj.selected && proj.expands.length === 0) return undefined;
  if (!proj.selected) items.unshift('*');
  return items.join(',');
}

/** A v4 collection page. */
export function collectionV4<T>(context: string, rows: T[], write: (row: T) => string, count: number | undefined, nextLink: string | undefined): string {
  let s = `{"@odata.context":${JSON.stringify(context)}`;
  if (count !== undefined) s += `,"@odata.count":${count}`;
  s += ',"value":[';
  for (let k = 0; k < rows.length; k++) s += (k === 0 ? '' : ',') + write(rows[k] as T);
  s += ']';
  if (nextLink !== undefined) s += `,"@odata.nextLink":${JSON.stringify(nextLink)}`;
  return `${s}}`;
}

/** A v4 single entity with its context annotation first. */
export function entityV4(context: string, row: unknown, write: RowWriter): string {
  const body = write(row);
  return `{"@odata.context":${JSON.stringify(context)}${body.length > 2 ? ',' : ''}${body.slice(1)}`;
}
