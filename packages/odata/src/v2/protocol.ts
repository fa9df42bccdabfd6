import { ODataVersionError } from '../errors.js';
import type { ODataProtocol, PageInfo } from '../protocol/types.js';
import type { Literal } from '../query/literal.js';
import { v2Write } from './write.js';
import { jsonType } from '../v4/protocol.js';
import { decodeV2Record } from './values.js';

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;
const OFFSET = /(Z|[+-]\d{2}:\d{2})$/;

/** PT13H45M10S from 13:45:10 (v2 writes times of day as durations). */
function timeToDuration(text: string): string {
  const [h, m, s] = text.split(':');
  return `PT${Number(h)}H${Number(m)}M${s === undefined ? '' : `${s.replace(/^0(\d)/, '$1')}S`}`;
}

/** Literal spellings of OData v2 URI conventions section 2.2.2 (typed prefixes and suffixes). */
function formatLiteral(literal: Literal): string {
  const { kind, text } = literal;
  switch (kind) {
    case 'string': return quote(text);
    case 'int64': return `${text}L`;
    case 'decimal': return `${text}M`;
    case 'double': return `${text}d`;
    case 'single': return `${text}f`;
    case 'guid': return `guid'${text}'`;
    // Edm.DateTime carries no offset: a UTC instant is written as its UTC wall time.
    case 'instant':
    case 'datetime': return `datetime'${text.replace(OFFSET, '')}'`;
    case 'datetimeoffset': return `datetimeoffset'${OFFSET.test(text) ? text : `${text}Z`}'`;
    case 'date': return `datetime'${text}T00:00'`;
    case 'timeofday': return `time'${timeToDuration(text)}'`;
    case 'duration': return `time'${text}'`;
    case 'binary': return `X'${Buffer.from(text, 'base64url').toString('hex').toUpperCase()}'`;
    default: return text;
  }
}

const object = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The OData v2 protocol: verbose JSON `d.results` / `d.__next` / `d.__count`, `/Date(ms)/`, typed literals. */
export const v2: ODataProtocol = {
  version: '2.0',
  write: v2Write,
  versionHeader: 'dataserviceversion',
  formatLiteral,
  countOption: ['$inlinecount', 'allpages'],
  // OData v2 has no $search; SAP Gateway reads the custom option `search` (SAP Gateway: basic search).
  searchOption: (text) => ['search', text],
  searchExpression: (expression) => ['search', expression],
  nestedExpand(path, options) {
    if (options.length === 0) return path;
    throw new ODataVersionError(`OData v2 cannot nest options in $expand (asked for ${path}(${options.join(';')})): expand a path such as 'Category/Products' and select 'Category/Name' instead`);
  },
  call(name, args) {
    // v2 has substringof(needle, haystack) where v4 has contains(haystack, needle).
    if (name === 'contains') return `substringof(${args[1]},${args[0]})`;
    return `${name}(${args.join(',')})`;
  },
  inList: (left, items) => (items.length === 1 ? `${left} eq ${items[0]}` : `(${items.map((i) => `${left} eq ${i}`).join(' or ')})`),
  lambda(path, op) {
    throw new ODataVersionError(`OData v2 has no lambda operators: cannot write ${path}/${op}(...)`);
  },
  requestHeaders() {
    return { accept: 'application/json', maxdataserviceversion: '2.0' };
  },
  recordPaths: [['d', 'results'], ['d']],
  pageInfo(envelope): PageInfo {
    const d = object(envelope['d']);
    const next = d?.['__next'];
    const count = d?.['__count'];
    return {
      nextLink: typeof next === 'string' ? next : undefined,
      count: count === undefined ? undefined : Number(count),
      invalidNextLink: next === undefined || typeof next === 'string' ? undefined : jsonType(next),
      deltaLink: typeof d?.['__delta'] === 'string' ? d['__delta'] : undefined,
    };
  },
  decodeRecord: decodeV2Record,
  decodeEntity(body, ctx) {
    const d = object(body)?.['d'];
    // Some services wrap a single entity as {"d":{"results":{...}}}.
    const results = object(d)?.['results'];
    return decodeV2Record(object(results) ?? d, ctx);
  },
};
