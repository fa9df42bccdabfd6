// OData v2 verbose JSON payloads (MS-ODATA 2.2.6.3): `d.results`, `__count`, `__next`, `__metadata`
// on every entity, `__deferred` navigation links, and inline expansion.
import { expandedRows, keyPredicate } from './expand-rows.js';
import { NAMESPACE, type SetSizes } from './model.js';
import type { Projection } from './projection.js';
import type { RowWriter } from './serialize-v4.js';

/** Builds a writer for rows of `proj`; `root` is the absolute service root (with trailing slash). */
export function rowWriterV2(proj: Projection, sizes: SetSizes, root: string): RowWriter {
  const set = proj.set;
  const type = JSON.stringify(`${NAMESPACE}.${set.typeName}`);
  const props = proj.props.map((p) => ({ prefix: `,"${p.name}":`, p }));
  const expands = proj.expands.map((plan) => ({ plan, write: rowWriterV2(plan.projection, sizes, root) }));
  return (row) => {
    const uri = JSON.stringify(`${root}${set.name}${keyPredicate(set, row)}`);
    let s = `{"__metadata":{"id":${uri},"uri":${uri},"type":${type}}`;
    for (let k = 0; k < props.length; k++) {
      const { prefix, p } = props[k] as (typeof props)[number];
      s += prefix + p.v2(row);
    }
    for (const nav of proj.deferred) s += `,"${nav.name}":{"__deferred":{"uri":${uri.slice(0, -1)}/${nav.name}"}}`;
    for (const { plan, write } of expands) {
      const { rows } = expandedRows(plan, row, sizes);
      if (!plan.nav.many) s += `,"${plan.nav.name}":${rows[0] === undefined ? 'null' : write(rows[0])}`;
      else s += `,"${plan.nav.name}":{"results":[${rows.map(write).join(',')}]}`;
    }
    return `${s}}`;
  };
}

/** A v2 collection page: `{"d":{"__count"?, "results", "__next"?}}`. */
export function collectionV2<T>(rows: T[], write: (row: T) => string, count: number | undefined, next: string | undefined): string {
  let s = '{"d":{';
  if (count !== undefined) s += `"__count":"${count}",`;
  s += '"results":[';
  for (let k = 0; k < rows.length; k++) s += (k === 0 ? '' : ',') + write(rows[k] as T);
  s += ']';
  if (next !== undefined) s += `,"__next":${JSON.stringify(next)}`;
  return `${s}}}`;
}

/** A v2 single entity: `{"d":{…}}`. */
export function entityV2(row: unknown, write: RowWriter): string {
  return `{"d":${write(row)}}`;
}
