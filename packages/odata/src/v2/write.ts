import { commonJson, type WriteProtocol } from '../protocol/write.js';
import type { Literal } from '../query/literal.js';
import type { DecodeContext } from '../protocol/types.js';
import { decodeV2Record, floatResult } from './values.js';

/** MS-ODATA verbose JSON: `/Date(ms)/` for DateTime, `/Date(ms+0000)/` for DateTimeOffset. */
function dateJson(text: string, offset: boolean): string {
  const ms = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`);
  return offset ? `/Date(${ms}+0000)/` : `/Date(${ms})/`;
}

/** OData v2 verbose JSON values: Int64 and Decimal always strings, dates as `/Date(ms)/`, binary base64. */
function jsonValue(literal: Literal): unknown {
  const { kind, text } = literal;
  const common = commonJson(literal);
  if (common !== undefined) return common.json;
  switch (kind) {
    case 'int64':
    case 'decimal': return text;
    case 'number':
    case 'double':
    case 'single': return Number.isFinite(Number(text)) ? Number(text) : text;
    case 'instant':
    case 'datetime': return dateJson(text, false);
    case 'datetimeoffset': return dateJson(text, true);
    case 'date': return dateJson(`${text}T00:00:00`, false);
    // v2 Edm.Time is a duration (PT13H45M).
    case 'timeofday': {
      const [h, m, s] = text.split(':');
      return `PT${Number(h)}H${Number(m)}M${s === undefined ? '' : `${Number(s)}S`}`;
    }
    case 'binary': return Buffer.from(text, 'base64url').toString('base64');
    default: return text;
  }
}

const object = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const RESULT: DecodeContext = { largeNumbers: 'string', metadata: undefined, entityType: undefined };

/**
 * A primitive result nested once more as `{"value":…}` (SAP CAP's v2 adapter does so for Int64): so when
 * `$metadata` declares a primitive (`Edm.*`) return type, or, without it, when the object holds only
 * `value` (and a `__metadata` naming no type) and that is not an object.
 */
function primitiveWrapper(record: Record<string, unknown>, returnType: string | undefined): boolean {
  const keys = Object.keys(record).filter((k) => k !== '__metadata');
  if (keys.length !== 1 || keys[0] !== 'value' || object(record['value']) !== undefined || Array.isArray(record['value'])) return false;
  if (returnType !== undefined) return returnType.startsWith('Edm.');
  return object(record['__metadata'])?.['type'] === undefined;
}

/** Writing in OData v2: MERGE (or tunnelled), no `Prefer`, function imports with literal query options. */
export const v2Write: WriteProtocol = {
  jsonValue,
  writeHeaders() {
    return { 'content-type': 'application/json', accept: 'application/json', dataserviceversion: '2.0', maxdataserviceversion: '2.0' };
  },
  method(method, tunnel): { method: string; headers: Record<string, string> } {
    // OData v2 (MS-ODATA 2.2.4): a partial update is MERGE; X-HTTP-Method tunnels it through POST.
    const real = method === 'PATCH' ? 'MERGE' : method;
    return tunnel ? { method: 'POST', headers: { 'x-http-method': real } } : { method: real, headers: {} };
  },
  prefer: () => undefined,
  functionCall(name, params) {
    return { path: name, query: params.map((p) => [p.name, p.literal()] as const), body: undefined };
  },
  actionCall(name, params) {
    return { path: name, query: params.map((p) => [p.name, p.literal()] as const), body: undefined };
  },
  boundOperations: false,
  operationResult(body, name, returnType, decode) {
    return floatResult(v2Result(body, name, returnType, decode?.entityType === undefined ? RESULT : decode), name, returnType);
  },
};

/** A v2 operation's answer unwrapped (`d`, a primitive's wrapper, `results`) and decoded (by the return type's entity type when `ctx` has it). */
function v2Result(body: unknown, name: string, returnType: string | undefined, ctx: DecodeContext): unknown {
  const d = object(body)?.['d'];
  const o = object(d);
  if (o === undefined) return d;
  // A function import returning a primitive or complex value answers {"d":{"<Name>":…}}.
  const keys = Object.keys(o);
  if (keys.length === 1 && keys[0] === name) {
    const value = o[name];
    const record = object(value);
    if (record === undefined) return value;
    return primitiveWrapper(record, returnType) ? record['value'] : decodeV2Record(record, ctx);
  }
  if (Array.isArray(o['results'])) return (o['results'] as unknown[]).map((r) => decodeV2Record(r, ctx));
  return decodeV2Record(o, ctx);
}
