import { ODataVersionError } from '../errors.js';
import type { DecodeContext, ODataProtocol, PageInfo } from '../protocol/types.js';
import type { Literal } from '../query/literal.js';
import { withoutControl } from '../read/control.js';
import { decodeV4Record, v4Decodes } from './values.js';
import { v4Write } from './write.js';

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Literal spellings of OData 4.0 ABNF (primitiveLiteral): dates, GUIDs and numbers bare, strings quoted. */
function formatLiteral(literal: Literal): string {
  const { kind, text } = literal;
  switch (kind) {
    case 'string': return quote(text);
    case 'duration': return `duration'${text}'`;
    case 'binary': return `binary'${text}'`;
    // v4 has no Edm.DateTime: a DateTime value is sent as a DateTimeOffset in UTC.
    case 'instant':
    case 'datetime': return /(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`;
    default: return text;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The JSON type of a value, for messages. */
export function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** The OData 4.0 protocol: JSON format `value` / `@odata.nextLink` / `@odata.count`, ISO dates. */
export const v4: ODataProtocol = {
  version: '4.0',
  write: v4Write,
  versionHeader: 'odata-version',
  formatLiteral,
  countOption: ['$count', 'true'],
  searchOption: (text) => ['$search', `"${text}"`],
  searchExpression: (expression) => ['$search', expression],
  nestedExpand: (path, options) => (options.length === 0 ? path : `${path}(${options.join(';')})`),
  call: (name, args) => `${name}(${args.join(',')})`,
  inList: (left, items) => `${left} in (${items.join(',')})`,
  lambda(path, op, variable, body) {
    if (variable === undefined || body === undefined) {
      if (op === 'all') throw new ODataVersionError('all() needs a lambda variable and a predicate');
      return `${path}/any()`;
    }
    return `${path}/${op}(${variable}:${body})`;
  },
  requestHeaders(largeNumbers, maxPageSize) {
    // OData JSON Format 4.0 section 3.2: IEEE754Compatible=true makes Int64 and Decimal strings.
    const headers: Record<string, string> = {
      accept: largeNumbers === 'string' ? 'application/json;odata.metadata=minimal;IEEE754Compatible=true' : 'application/json;odata.metadata=minimal',
      'odata-maxversion': '4.0',
    };
    // OData 4.0 Part 1 section 8.2.8.3: the client may lower the server's page size, never raise it.
    if (maxPageSize !== undefined) headers['prefer'] = `odata.maxpagesize=${maxPageSize}`;
    return headers;
  },
  recordPaths: [['value']],
  pageInfo(envelope): PageInfo {
    const count = envelope['@odata.count'] ?? envelope['@count'];
    // OData 4.01 JSON allows the short annotation names without the odata. prefix.
    const next = '@odata.nextLink' in envelope ? envelope['@odata.nextLink'] : envelope['@nextLink'];
    return {
      nextLink: text(next),
      count: count === undefined ? undefined : Number(count),
      context: text(envelope['@odata.context']) ?? text(envelope['@context']),
      invalidNextLink: next === undefined || typeof next === 'string' ? undefined : jsonType(next),
      deltaLink: text(envelope['@odata.deltaLink']) ?? text(envelope['@deltaLink']),
    };
  },
  decodeEntity(body: unknown, ctx: DecodeContext) {
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      const entity = withoutControl(body);
      return v4Decodes(ctx) ? decodeV4Record(entity, ctx) : entity;
    }
    return body;
  },
};
