// $select on the writable sets (Orders, OrderLines, Orders(n)/Lines and single entities), parsed as on the
// generated sets (selectedNames): the fields an order or a line is written with, and whether Lines is.
import type { ODataVersion } from '../model.js';
import { selectedNames, type SelectedNames } from '../projection.js';
import { LINE_FIELDS, ORDER_FIELDS, type FieldDef } from './orders.js';

/** What of an order (or a line) a response writes. */
export interface WriteSelection {
  readonly fields: readonly FieldDef[];
  /** The fields of each line of an expanded `Lines`. */
  readonly lineFields: readonly FieldDef[];
  /** Whether v2 writes the `Lines` link when it is not expanded (it is not when `$select` leaves it out). */
  readonly deferredLines: boolean;
  /** The v4 context URL's select list (`ID,Customer`, `ID,Lines()`), undefined when `$select` narrows nothing. */
  readonly context: string | undefined;
}

/** Every field and the Lines link: no `$select`. */
export const SELECT_ALL: WriteSelection = { fields: ORDER_FIELDS, lineFields: LINE_FIELDS, deferredLines: true, context: undefined };

const names = (fields: readonly FieldDef[], navs: readonly string[] = []) => ({ properties: fields.map((f) => f.name), navs });
const keep = (fields: readonly FieldDef[], s: SelectedNames | undefined) => (s === undefined ? fields : fields.filter((f) => s.properties.has(f.name)));

/** `$select` on Orders (`expand`: `$expand=Lines` was asked for; v2 then takes `Lines/Product` paths). */
export function orderSelection(select: string | undefined, version: ODataVersion, expand: boolean): WriteSelection {
  const linePaths: string[] = [];
  const s = selectedNames(select, 'Order', names(ORDER_FIELDS, ['Lines']), version, () => (expand ? linePaths : undefined));
  if (s === undefined) return SELECT_ALL;
  const lines = linePaths.length > 0 ? selectedNames(linePaths.join(','), 'OrderLine', names(LINE_FIELDS), version, () => undefined) : undefined;
  const fields = keep(ORDER_FIELDS, s);
  return {
    fields, lineFields: keep(LINE_FIELDS, lines), deferredLines: s.navs.has('Lines'),
    context: [...fields.map((f) => f.name), ...(expand ? ['Lines()'] : [])].join(','),
  };
}

/** `$select` on OrderLines and `Orders(n)/Lines`. */
export function lineSelection(select: string | undefined, version: ODataVersion): WriteSelection {
  const s = selectedNames(select, 'OrderLine', names(LINE_FIELDS), version, () => undefined);
  if (s === undefined) return { ...SELECT_ALL, fields: LINE_FIELDS };
  const fields = keep(LINE_FIELDS, s);
  return { fields, lineFields: fields, deferredLines: false, context: fields.map((f) => f.name).join(',') };
}
