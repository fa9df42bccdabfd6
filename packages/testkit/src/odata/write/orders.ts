// The writable part of the test service: Orders and their OrderLines, held in memory, with typed
// validation per version (v4 JSON Format numbers or IEEE754Compatible strings; v2 verbose JSON strings
// and /Date(ms)/) and a version counter behind each order's ETag.
import { badRequest, ODataServerError } from '../errors.js';
import type { ODataVersion } from '../model.js';

/** EDM types of the writable properties. */
export type WriteType = 'Edm.Int32' | 'Edm.String' | 'Edm.Decimal' | 'Edm.Int64' | 'Edm.DateTimeOffset' | 'Edm.Binary';

/** A writable entity type's property. */
export interface FieldDef {
  readonly name: string;
  readonly type: WriteType;
  readonly nullable: boolean;
  /** Set by the server; a client value is ignored on create and refused on update. */
  readonly computed?: boolean;
  readonly maxLength?: number;
  readonly precision?: number;
  readonly scale?: number;
}

/** Values as stored: numbers for Int32, exact decimal/integer text for Decimal/Int64, ms for dates, base64 for binary. */
export type Stored = Record<string, string | number | null>;

export const ORDER_FIELDS: readonly FieldDef[] = [
  { name: 'ID', type: 'Edm.Int32', nullable: false },
  { name: 'Customer', type: 'Edm.String', nullable: false, maxLength: 40 },
  { name: 'Amount', type: 'Edm.Decimal', nullable: false, precision: 12, scale: 2 },
  { name: 'Quantity', type: 'Edm.Int64', nullable: false },
  { name: 'Status', type: 'Edm.String', nullable: false, maxLength: 20 },
  { name: 'DeliveryDate', type: 'Edm.DateTimeOffset', nullable: true },
  { name: 'Attachment', type: 'Edm.Binary', nullable: true },
  { name: 'ModifiedAt', type: 'Edm.DateTimeOffset', nullable: false, computed: true },
];

export const LINE_FIELDS: readonly FieldDef[] = [
  { name: 'ID', type: 'Edm.Int32', nullable: false },
  { name: 'OrderID', type: 'Edm.Int32', nullable: false, computed: true },
  { name: 'Product', type: 'Edm.String', nullable: false, maxLength: 40 },
  { name: 'Qty', type: 'Edm.Int32', nullable: false },
];

const DEFAULTS: Stored = { Customer: '', Amount: '0', Quantity: '0', Status: 'New', DeliveryDate: null, Attachment: null };
const DECIMAL = /^-?\d+(?:\.\d+)?$/;
const INTEGER = /^-?\d+$/;
const V2_DATE = /^\/Date\((-?\d+)(?:[+-]\d{4})?\)\/$/;

/** How a request's JSON numbers are to be read: v2, or v4 with or without IEEE754Compatible. */
export interface Dialect { readonly version: ODataVersion; readonly ieee: boolean }

function wrongType(f: FieldDef, raw: unknown, d: Dialect): ODataServerError {
  const shape = d.version === 2 ? 'OData v2 verbose JSON' : d.ieee ? 'IEEE754Compatible=true' : 'OData v4 JSON';
  return badRequest(`Property '${f.name}' (${f.type}) cannot take ${JSON.stringify(raw)} in ${shape}`, f.name);
}

/** Reads one client value of `f` as the dialect requires, or throws a 400. */
export function readValue(f: FieldDef, raw: unknown, d: Dialect): string | number | null {
  if (raw === null) {
    if (!f.nullable) throw badRequest(`Property '${f.name}' cannot be null`, f.name);
    return null;
  }
  const bad = (): never => { throw wrongType(f, raw, d); };
  switch (f.type) {
    case 'Edm.Int32':
      return typeof raw === 'number' && Number.isInteger(raw) && Math.abs(raw) < 2 ** 31 ? raw : bad();
    case 'Edm.String':
      if (typeof raw !== 'string') return bad();
      if (f.maxLength !== undefined && raw.length > f.maxLength) throw badRequest(`Property '${f.name}' is longer than ${f.maxLength}`, f.name);
      return raw;
    case 'Edm.Decimal': {
      // JSON Format 4.01 section 3.2: strings only with IEEE754Compatible (numbers still allowed); v2 always strings.
      const text = typeof raw === 'number' && d.version === 4 ? String(raw) : typeof raw === 'string' && (d.version === 2 || d.ieee) ? raw : bad();
      if (!DECIMAL.test(text)) return bad();
      const scale = text.includes('.') ? text.length - text.indexOf('.') - 1 : 0;
      if (f.scale !== undefined && scale > f.scale) throw badRequest(`Property '${f.name}' has more than ${f.scale} decimals`, f.name);
      return text;
    }
    case 'Edm.Int64': {
      if (d.version === 4 && typeof raw === 'number') return Number.isSafeInteger(raw) ? String(raw) : bad();
      return typeof raw === 'string' && INTEGER.test(raw) && (d.version === 2 || d.ieee) ? raw : bad();
    }
    case 'Edm.DateTimeOffset': {
      if (typeof raw !== 'string') return bad();
      if (d.version === 2) {
        const m = V2_DATE.exec(raw);
        return m ? Number(m[1]) : bad();
      }
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw) ? Date.parse(raw) : bad();
    }
    case 'Edm.Binary':
      // v4 JSON: base64url (JSON Format 4.01 section 7.1); v2: base64.
      if (typeof raw !== 'string') return bad();
      return (d.version === 4 ? /^[A-Za-z0-9_-]*={0,2}$/ : /^[A-Za-z0-9+/]*={0,2}$/).test(raw) ? raw : bad();
  }
}

/** JSON text of a stored value in the dialect. */
export function writeValue(f: FieldDef, value: string | number | null, d: Dialect): string {
  if (value === null) return 'null';
  switch (f.type) {
    case 'Edm.Decimal':
    case 'Edm.Int64':
      return d.version === 4 && !d.ieee ? String(value) : JSON.stringify(String(value));
    case 'Edm.DateTimeOffset':
      return JSON.stringify(d.version === 2 ? `/Date(${value})/` : new Date(value as number).toISOString());
    default:
      return JSON.stringify(value);
  }
}

/** Reads the client's properties of one entity into `target`; unknown names and computed ones are refused. */
export function readEntity(fields: readonly FieldDef[], body: Record<string, unknown>, d: Dialect, skip: readonly string[]): Stored {
  const out: Stored = {};
  for (const [name, raw] of Object.entries(body)) {
    if (name.startsWith('@') || name.includes('@') || name === '__metadata' || skip.includes(name)) continue;
    const f = fields.find((x) => x.name === name);
    if (!f) throw badRequest(`Property '${name}' does not exist`, name);
    if (f.computed) continue;
    out[name] = readValue(f, raw, d);
  }
  return out;
}

/** One order as stored. */
export interface OrderRecord { values: Stored; version: number; lines: number[] }

/** The in-memory store of Orders and OrderLines. */
export class OrderStore {
  readonly orders = new Map<number, OrderRecord>();
  readonly lines = new Map<number, Stored>();
  private nextOrder = 1;
  private nextLine = 1;
  private tick = Date.UTC(2026, 0, 1);
  /**
   * Change log for delta reads: one entry per create, update or delete of an order, in order, and one per
   * link between an order and a line added (a deep insert) or removed (the order deleted): `link`.
   */
  readonly changes: Array<{ seq: number; id: number; deleted: boolean; link?: number }> = [];
  /** Delta tokens below this sequence number are expired (answered 410). */
  expiredBefore = 0;

  /** The sequence number of the last change (a delta token). */
  get seq(): number {
    return this.changes.at(-1)?.seq ?? 0;
  }

  private log(id: number, deleted: boolean, link?: number): void {
    this.changes.push(link === undefined ? { seq: this.seq + 1, id, deleted } : { seq: this.seq + 1, id, deleted, link });
  }

  /** The ETag of an order: weak, from its version counter. */
  etag(order: OrderRecord): string {
    return `W/"${order.version}"`;
  }

  get(id: number): OrderRecord {
    const order = this.orders.get(id);
    if (!order) throw new ODataServerError(404, 'NotFound', `No Order with key (${id})`);
    return order;
  }

  /** Creates an order (and inline lines: a deep insert). */
  create(body: Record<string, unknown>, d: Dialect): OrderRecord {
    const values = { ...DEFAULTS, ...readEntity(ORDER_FIELDS, body, d, ['Lines']) };
    let id = values['ID'] as number | undefined;
    if (id === undefined) id = this.nextOrder;
    if (this.orders.has(id)) throw new ODataServerError(409, 'Conflict', `An Order with key (${id}) exists`);
    this.nextOrder = Math.max(this.nextOrder, id + 1);
    values['ID'] = id;
    values['ModifiedAt'] = this.tick++;
    const order: OrderRecord = { values, version: 1, lines: [] };
    const inline = body['Lines'];
    const rows = Array.isArray(inline) ? inline : d.version === 2 && Array.isArray((inline as { results?: unknown })?.results) ? (inline as { results: unknown[] }).results : inline === undefined ? [] : undefined;
    if (rows === undefined) throw badRequest("'Lines' must be an array of OrderLine entities", 'Lines');
    for (const raw of rows) {
      if (typeof raw !== 'object' || raw === null) throw badRequest('An inline OrderLine must be an object', 'Lines');
      const line: Stored = { Product: '', Qty: 0, ...readEntity(LINE_FIELDS, raw as Record<string, unknown>, d, []) };
      const lineID = this.nextLine++;
      line['ID'] = lineID;
      line['OrderID'] = id;
      this.lines.set(lineID, line);
      order.lines.push(lineID);
    }
    this.orders.set(id, order);
    this.log(id, false);
    for (const line of order.lines) this.log(id, false, line);
    return order;
  }

  /** PATCH/MERGE: changes the given properties. PUT (`replace`): every property not given is reset. */
  update(order: OrderRecord, body: Record<string, unknown>, d: Dialect, replace: boolean): void {
    const changes = readEntity(ORDER_FIELDS, body, d, []);
    if (changes['ID'] !== undefined && changes['ID'] !== order.values['ID']) throw badRequest('The key ID cannot change', 'ID');
    const base = replace ? { ...DEFAULTS, ID: order.values['ID']! } : order.values;
    order.values = { ...base, ...changes, ModifiedAt: this.tick++ };
    order.version++;
    this.log(order.values['ID'] as number, false);
  }

  /** Copies the state; the returned function puts it back (a failed batch changeset is rolled back). */
  snapshot(): () => void {
    const orders = [...this.orders].map(([k, o]) => [k, { values: { ...o.values }, version: o.version, lines: [...o.lines] }] as [number, OrderRecord]);
    const lines = [...this.lines].map(([k, l]) => [k, { ...l }] as [number, Stored]);
    const { nextOrder, nextLine, tick } = this;
    const logged = this.changes.length;
    return () => {
      this.changes.length = logged;
      this.orders.clear();
      for (const [k, o] of orders) this.orders.set(k, o);
      this.lines.clear();
      for (const [k, l] of lines) this.lines.set(k, l);
      Object.assign(this, { nextOrder, nextLine, tick });
    };
  }

  delete(id: number): void {
    const order = this.get(id);
    for (const line of order.lines) {
      this.lines.delete(line);
      this.log(id, true, line);
    }
    this.orders.delete(id);
    this.log(id, true);
  }
}
