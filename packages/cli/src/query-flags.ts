import {
  binary, datetime, datetimeoffset, decimal, double, duration, guid, int64, single,
  type ODataClient, type ODataVersion, type Query, type TypedValue,
} from '@sluice/odata';
import { UsageError } from './errors.js';
import { parseExpand, planSelect, splitTopLevel } from './expand-flags.js';

/** Query flags of `export`, `count` and `url`. */
export interface QueryFlags {
  filter?: string;
  select?: string;
  expand?: string;
  orderby?: string;
  top?: number;
  skip?: number;
  search?: string;
  param?: string[];
}

/** Splits a comma-separated list, trimming items and dropping empty ones. */
export function list(text: string | undefined): string[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * Learns the service's OData version first when `--select` names a path through an expansion
 * (`author/name`): v2 and v4 write it differently (see planSelect).
 */
export async function readyForSelect(od: ODataClient, flags: Pick<QueryFlags, 'select'>, signal: AbortSignal): Promise<void> {
  if (od.version === undefined && list(flags.select).some((s) => s.includes('/'))) await od.ready(signal);
}

/** The query the flags describe on `entitySet`: `$filter` is sent as written, the rest is checked. */
export function buildQuery(od: ODataClient, entitySet: string, flags: QueryFlags): Query {
  let query = od.from(entitySet);
  if (flags.filter !== undefined) query = query.filter(flags.filter);
  const { select, expand } = planSelect(list(flags.select), parseExpand(flags.expand), od.version);
  if (select.length) query = query.select(...select);
  for (const item of expand) query = query.expand(item.path, item.options);
  const orderBy = list(flags.orderby);
  if (orderBy.length) query = query.orderBy(...orderBy);
  if (flags.top !== undefined) query = query.top(flags.top);
  if (flags.skip !== undefined) query = query.skip(flags.skip);
  if (flags.search !== undefined) query = query.search(flags.search);
  for (const pair of flags.param ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--param expects name=value, got ${JSON.stringify(pair.slice(0, 40))}`, 'for example --param sap-client=100');
    query = query.param(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return query;
}

/** Typed OData literals a key may be written in, as `name'text'` (hex: v2 binary; base64url: v4 binary). */
const QUOTED_LITERALS: Record<string, (text: string, version: ODataVersion | undefined) => TypedValue> = {
  datetime: (t) => datetime(t),
  datetimeoffset: (t) => datetimeoffset(t),
  guid: (t) => guid(t),
  time: (t) => duration(t),
  duration: (t) => duration(t),
  x: (t) => binary(hexBytes(t)),
  binary: (t, version) => binary(version === '4.0' ? base64urlBytes(t) : hexBytes(t)),
};

function hexBytes(text: string): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new UsageError(`the binary key literal ${JSON.stringify(text.slice(0, 60))} is not hexadecimal`, "OData v2 writes X'0A1B' or binary'0A1B'");
  return Buffer.from(text, 'hex');
}

function base64urlBytes(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) throw new UsageError(`the binary key literal ${JSON.stringify(text.slice(0, 60))} is not base64url`, "OData v4 writes binary'T0RhdGE'");
  return Buffer.from(text, 'base64url');
}

/** Numbers with a type suffix: `123L` (Int64), `1.5M` (Decimal), `1.5d` (Double), `1.5f` (Single). */
const SUFFIXED = /^([+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)([LlMmDdFf])$/;
const SUFFIX: Record<string, (text: string) => TypedValue> = { l: (t) => int64(t), m: (t) => decimal(t), d: (t) => double(t), f: (t) => single(t) };

/**
 * The OData literal a key value is written as, when it is one: `datetime'…'`, `datetimeoffset'…'`,
 * `guid'…'`, `time'…'`/`duration'…'`, `X'…'`/`binary'…'`, `123L`, `1.5M`, `1.5d`, `1.5f`. The value is
 * checked and written again by `@sluice/odata` (never pasted into the URL as typed).
 */
function typedLiteral(text: string, version: ODataVersion | undefined): TypedValue | undefined {
  const quoted = /^([A-Za-z]+)'(.*)'$/s.exec(text);
  if (quoted) {
    const make = QUOTED_LITERALS[quoted[1]!.toLowerCase()];
    if (make === undefined) throw new UsageError(`unknown key literal ${JSON.stringify(text.slice(0, 60))}`, `known: ${Object.keys(QUOTED_LITERALS).join("'…', ")}'…', 123L, 1.5M, 1.5d, 1.5f, or 'text' for a string`);
    return make(quoted[2]!, version);
  }
  const suffixed = SUFFIXED.exec(text);
  return suffixed ? SUFFIX[suffixed[2]!.toLowerCase()]!(suffixed[1]!) : undefined;
}

/** How {@link parseKey} reads values: typed OData literals (`sluice get`, with the service's version) or not. */
export interface KeyReading {
  /** `$metadata` is loaded and types the key: a bare integer stays text for it to decide. */
  typed: boolean;
  /** Read `datetime'…'`, `guid'…'`, `123L` and the other typed literals (for the OData version given). */
  literals?: { version: ODataVersion | undefined };
}

/**
 * One key value as typed on the command line: `'A'` is a string (`''` inside is a quote), a typed OData
 * literal is that type (with `reading.literals`), a bare integer is a number unless `reading.typed`
 * (the service's `$metadata` is loaded and decides), anything else a string.
 */
function keyValue(text: string, reading: KeyReading): string | number | TypedValue {
  const t = text.trim();
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  const literal = reading.literals === undefined ? undefined : typedLiteral(t, reading.literals.version);
  if (literal !== undefined) return literal;
  if (!reading.typed && /^-?\d{1,15}$/.test(t)) return Number(t);
  return t;
}

/** A key argument: `42`, `'A'`, `guid'…'` or `OrderID=1,ItemNo='A'` for a composite key. */
export function parseKey(text: string, reading: KeyReading): string | number | TypedValue | Record<string, string | number | TypedValue> {
  if (text.trim() === '') throw new UsageError('the key is empty', "for example 42, 'A' or OrderID=1,ItemNo='A'");
  const parts = splitTopLevel(text, ',', 'the key');
  const named = parts.map((p) => /^\s*([A-Za-z_][\w]*)\s*=(.*)$/s.exec(p));
  if (named.every((m) => m !== null) && !(parts.length === 1 && /^\s*[A-Za-z]*'/.test(text))) {
    return Object.fromEntries(named.map((m) => [m![1]!, keyValue(m![2]!, reading)]));
  }
  if (parts.length > 1) throw new UsageError(`cannot read the key ${JSON.stringify(text.slice(0, 60))}`, "a composite key names its parts: OrderID=1,ItemNo='A'");
  return keyValue(text, reading);
}
