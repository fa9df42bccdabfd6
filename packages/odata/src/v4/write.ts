import { encodePathSegment } from '@sluice/core';
import { commonJson, type WriteProtocol } from '../protocol/write.js';
import type { Literal } from '../query/literal.js';
import { withoutControl } from '../read/control.js';
import { floatResult } from '../v2/values.js';
import { decodeV4Record, v4Decodes } from './values.js';

const SPECIAL = new Set(['NaN', 'INF', '-INF']);

/** OData JSON Format 4.01 section 7.1: primitive values in request bodies. */
function jsonValue(literal: Literal, ieee754: boolean): unknown {
  const { kind, text } = literal;
  const common = commonJson(literal);
  if (common !== undefined) return common.json;
  switch (kind) {
    // Section 3.2: with IEEE754Compatible=true, Int64 and Decimal are strings and keep every digit.
    case 'int64':
    case 'decimal': return ieee754 ? text : Number(text);
    case 'number':
    case 'double':
    case 'single': return SPECIAL.has(text) ? text : Number(text);
    case 'instant':
    case 'datetime': return /(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`;
    default: return text;
  }
}

const object = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Writing in OData 4.0: PATCH, `Prefer`, inline or aliased function parameters, JSON action bodies. */
export const v4Write: WriteProtocol = {
  jsonValue,
  writeHeaders(largeNumbers) {
    const json = largeNumbers === 'string' ? 'application/json;odata.metadata=minimal;IEEE754Compatible=true' : 'application/json;odata.metadata=minimal';
    return { 'content-type': json, accept: json, 'odata-version': '4.0', 'odata-maxversion': '4.0' };
  },
  method(method, tunnel): { method: string; headers: Record<string, string> } {
    return tunnel ? { method: 'POST', headers: { 'x-http-method': method } } : { method, headers: {} };
  },
  // OData 4.01 Part 1 section 8.2.8.7.
  prefer: (ret) => `return=${ret}`,
  functionCall(name, params, aliases) {
    // URL Conventions 4.01 section 5.1.1.13: parameter aliases carry values in the query string.
    if (aliases) {
      return {
        path: `${name}(${params.map((p) => `${p.name}=@${p.name}`).join(',')})`,
        query: params.map((p) => [`@${p.name}`, p.literal()] as const),
        body: undefined,
      };
    }
    return { path: `${name}(${params.map((p) => `${p.name}=${encodePathSegment(p.literal())}`).join(',')})`, query: [], body: undefined };
  },
  actionCall(name, params) {
    return { path: name, query: [], body: Object.fromEntries(params.map((p) => [p.name, p.json()])) };
  },
  boundOperations: true,
  operationResult(body, name, returnType, decode) {
    const o = object(body);
    if (o === undefined) return floatResult(body, name, returnType);
    // An entity (or a collection of entities) of a type in the model: decoded as reads decode it ("INF", dates).
    const entity = decode !== undefined && v4Decodes(decode) ? (v: unknown): unknown => decodeV4Record(v, decode) : undefined;
    const many = returnType?.startsWith('Collection(') === true;
    if (entity !== undefined && !many) return withoutControl(entity(o));
    const keys = Object.keys(o).filter((k) => !k.startsWith('@'));
    // A primitive or collection result comes as {"@odata.context":…,"value":…}; a Double's "INF" as a number.
    if (keys.length === 1 && keys[0] === 'value') {
      const value = o['value'];
      if (entity !== undefined && Array.isArray(value)) return withoutControl(value.map(entity));
      return floatResult(value, name, returnType);
    }
    return withoutControl(o);
  },
};
