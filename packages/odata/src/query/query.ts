import { ConfigError, encodePathSegment, encodeQueryComponent } from '@sluice/core';
import { propertyType, type EntityTypeInfo, type ServiceMetadata } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import type { StreamOptions } from '../read/stream.js';
import type { Page, StreamItem } from '../read/stream-item.js';
import { makeExpandItem, renderExpand, type ExpandItem, type ExpandOptions } from './expand.js';
import { Expr, FilterBuilder, type RenderContext } from './filter.js';
import { toLiteral, TypedValue, type LiteralValue } from './literal.js';
import { checkIdentifier, checkPath } from './names.js';
import { checkCount, checkOrderBy, checkParamName, checkSelect } from './options.js';

/** A key: one value, or property names to values for a composite key (`{ OrderID: 1, ItemNo: 'A' }`). */
export type KeyValue = LiteralValue | Readonly<Record<string, LiteralValue>>;

/** Options of the reads (`get`, `list`, `countOnly`, `pages`). */
export interface ReadOptions {
  signal?: AbortSignal;
}

/** What a query needs from its client to build URLs and run. @internal */
export interface QueryHost {
  readonly serviceURL: string;
  /** The protocol if the version is known already (explicit or detected), else undefined. */
  knownProtocol(): ODataProtocol | undefined;
  /** Metadata if loaded already. */
  loadedMetadata(): ServiceMetadata | undefined;
  /** Detects the version (and loads metadata in auto mode). */
  ready(signal?: AbortSignal): Promise<ODataProtocol>;
  runGet(url: string, entityType: EntityTypeInfo | undefined, options: ReadOptions): Promise<unknown>;
  openStream(
    prepare: (signal: AbortSignal) => Promise<{ url: string; entityType: EntityTypeInfo | undefined }>, options: StreamOptions,
  ): AsyncIterator<StreamItem<unknown>>;
  runPages(url: string, entityType: EntityTypeInfo | undefined, options: Omit<StreamOptions, 'prefetch'>): AsyncGenerator<Page<unknown>>;
  runCount(url: string, options: ReadOptions): Promise<number>;
}

type Segment = { kind: 'key'; key: KeyValue } | { kind: 'nav'; name: string };

interface State {
  readonly set: string;
  readonly segments: readonly Segment[];
  readonly filters: readonly (string | Expr)[];
  readonly select: readonly string[];
  readonly expand: readonly ExpandItem[];
  readonly orderBy: readonly string[];
  readonly top: number | undefined;
  readonly skip: number | undefined;
  readonly count: boolean;
  readonly search: string | undefined;
  readonly params: readonly (readonly [string, string])[];
}

/** Encodes a query option value: core's encoding (`%20`, never `+`), with `=` kept as OData's EQ needs. */
export function encodeOptionValue(value: string): string {
  // OData ABNF: EQ = "=" literally, as in nested $expand options ($select=Name).
  return encodeQueryComponent(value).replace(/%3D/g, '=');
}

function isKeyRecord(key: KeyValue): key is Readonly<Record<string, LiteralValue>> {
  return typeof key === 'object' && key !== null && !(key instanceof Date) && !(key instanceof TypedValue);
}

/**
 * An immutable OData query on an entity set: every method returns a new query, so a base query can be
 * shared and refined. Build with `filter`, `select`, `expand`, `orderBy`, `top`, `skip`, `count`,
 * `search`, `param`, address with `key` and `nav`, and run with `get`, `list`, `stream`, `pages` or
 * `countOnly`. `toURL()` shows the URL (the version must be known: explicit, or detected by a run).
 *
 * @example
 * ```ts
 * const q = od.from<Product>('Products').filter((f) => f.gt('Price', 10)).select('ID', 'Name').top(5)
 * q.toURL()  // https://host/svc/Products?$filter=Price%20gt%2010&$select=ID,Name&$top=5
 * for await (const item of q.stream()) if ('value' in item) console.log(item.value.Name)
 * ```
 */
export class Query<T = Record<string, unknown>> {
  /** @internal */
  constructor(private readonly host: QueryHost, private readonly state: State) {}

  /** @internal */
  static start<T>(host: QueryHost, set: string): Query<T> {
    checkIdentifier(set, 'entity set');
    return new Query<T>(host, {
      set, segments: [], filters: [], select: [], expand: [], orderBy: [], top: undefined, skip: undefined, count: false, search: undefined, params: [],
    });
  }

  private with(patch: Partial<State>): Query<T> {
    return new Query<T>(this.host, { ...this.state, ...patch });
  }

  /**
   * Adds a `$filter` condition (several calls are joined with `and`): a builder callback, an expression,
   * or a raw string you vouch for.
   */
  filter(condition: string | Expr | ((f: FilterBuilder<T>) => Expr)): Query<T> {
    const expr = typeof condition === 'function' ? condition(new FilterBuilder<T>()) : condition;
    if (typeof expr === 'string' ? expr.trim() === '' : !(expr instanceof Expr)) throw new ConfigError('filter', 'must be a non-empty string, an expression or a builder callback');
    return this.with({ filters: [...this.state.filters, expr] });
  }

  /** Adds properties to `$select` (paths such as `Category/Name` allowed). */
  select(...properties: (Extract<keyof T, string> | (string & {}))[]): Query<T> {
    return this.with({ select: [...this.state.select, ...properties.map((p) => checkSelect(p))] });
  }

  /** Adds a navigation property to `$expand`, with nested options in v4. */
  expand(navigation: Extract<keyof T, string> | (string & {}), nested?: ExpandOptions): Query<T> {
    return this.with({ expand: [...this.state.expand, makeExpandItem(navigation, nested)] });
  }

  /** Adds `$orderby` items such as `'Price desc'`, `'Name'`. */
  orderBy(...items: string[]): Query<T> {
    return this.with({ orderBy: [...this.state.orderBy, ...items.map((i) => checkOrderBy(i))] });
  }

  /** `$top`: at most n records in total (the server may still page them). */
  top(n: number): Query<T> {
    return this.with({ top: checkCount(n, 'top') });
  }

  /** `$skip`: skip the first n records. Prefer server paging (`stream`, `pages`) to manual skipping. */
  skip(n: number): Query<T> {
    return this.with({ skip: checkCount(n, 'skip') });
  }

  /** Asks for the total count inline (`$count=true` in v4, `$inlinecount=allpages` in v2). */
  count(): Query<T> {
    return this.with({ count: true });
  }

  /** Free-text search: v4 `$search` with the text as one phrase; v2 SAP Gateway's `search` option. */
  search(text: string): Query<T> {
    if (typeof text !== 'string' || text.trim() === '') throw new ConfigError('search', 'must be a non-empty string');
    // OData ABNF searchPhrase has no escape for a double quote.
    if (text.includes('"')) throw new ConfigError('search', 'cannot contain a double quote (OData search phrases have no escape for it)');
    return this.with({ search: text });
  }

  /** A custom query option such as `sap-client=100`; kept on every page request by the server's next links. */
  param(name: string, value: string | number | boolean): Query<T> {
    checkParamName(name);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new ConfigError(`param ${name}`, 'must be a string, number or boolean');
    return this.with({ params: [...this.state.params, [name, String(value)]] });
  }

  /** Addresses one entity by key: `key(1)`, `key('A')`, `key({ OrderID: 1, ItemNo: 'A' })`. */
  key(value: KeyValue): Query<T> {
    if (value === undefined) throw new ConfigError('key', 'must be a value or an object of key properties');
    if (isKeyRecord(value)) {
      if (Object.keys(value).length === 0) throw new ConfigError('key', 'must name at least one property');
      for (const name of Object.keys(value)) checkIdentifier(name, 'key property');
    }
    return this.with({ segments: [...this.state.segments, { kind: 'key', key: value }] });
  }

  /** Navigates along a navigation property (`Products(1)/Category`); U is the target's type. */
  nav<U = Record<string, unknown>>(property: string): Query<U> {
    checkPath(property, 'nav');
    return new Query<U>(this.host, { ...this.state, segments: [...this.state.segments, { kind: 'nav', name: property }] });
  }

  /**
   * The request URL (absolute). Throws ConfigError when the client's version is `'auto'` and not yet
   * detected: run a read first, or `await od.ready()`.
   */
  toURL(): string {
    const protocol = this.host.knownProtocol();
    if (protocol === undefined) throw new ConfigError('version', "is not known yet: pass version '2.0' or '4.0', or await od.ready() before toURL()");
    return this.render(protocol).url;
  }

  /** @internal Builds the URL with a protocol; `countSegment` appends `/$count`. */
  render(protocol: ODataProtocol, countSegment = false): { url: string; entityType: EntityTypeInfo | undefined } {
    const md = this.host.loadedMetadata();
    let type = md?.entitySets.get(this.state.set)?.entityType;
    let path = encodePathSegment(this.state.set);
    for (const segment of this.state.segments) {
      if (segment.kind === 'nav') {
        const nav = type?.navigation.get(segment.name);
        type = nav?.type ? md?.entityTypes.get(nav.type) : undefined;
        path += `/${segment.name}`;
      } else path += this.keyPredicate(protocol, segment.key, type);
    }
    if (countSegment) path += '/$count';
    const ctx: RenderContext = { protocol, typeOf: (p) => (md ? propertyType(md, type, p) : undefined) };
    const s = this.state;
    const options: [string, string][] = [];
    if (s.filters.length) {
      const parts = s.filters.map((f) => (typeof f === 'string' ? { text: f, prec: 0 } : { text: f.render(ctx), prec: f.precedence }));
      // Joined conditions keep their meaning: anything looser than `and` is parenthesised.
      options.push(['$filter', parts.length === 1 ? parts[0]!.text : parts.map((p) => (p.prec >= 2 ? p.text : `(${p.text})`)).join(' and ')]);
    }
    if (!countSegment) {
      if (s.select.length) options.push(['$select', s.select.join(',')]);
      if (s.expand.length) options.push(['$expand', renderExpand(s.expand, ctx)]);
      if (s.orderBy.length) options.push(['$orderby', s.orderBy.join(',')]);
      if (s.top !== undefined) options.push(['$top', String(s.top)]);
      if (s.skip !== undefined) options.push(['$skip', String(s.skip)]);
      if (s.count) options.push([...protocol.countOption]);
    }
    if (s.search !== undefined) options.push([...protocol.searchOption(s.search)]);
    options.push(...s.params.map(([n, v]) => [n, v] as [string, string]));
    const query = options.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
    return { url: this.host.serviceURL + path + (query ? `?${query}` : ''), entityType: type };
  }

  private keyPredicate(protocol: ODataProtocol, key: KeyValue, type: EntityTypeInfo | undefined): string {
    const typeOf = (name: string | undefined): string | undefined => {
      const prop = name ?? (type?.key.length === 1 ? type.key[0] : undefined);
      return prop === undefined ? undefined : type?.properties.get(prop)?.type;
    };
    const literal = (value: LiteralValue, name: string | undefined): string =>
      encodePathSegment(protocol.formatLiteral(toLiteral(value, typeOf(name))));
    if (!isKeyRecord(key)) return `(${literal(key, undefined)})`;
    const names = Object.keys(key);
    // OData 4.0 Part 2 section 4.3.1: composite keys are name=value pairs, in any order.
    return `(${names.map((n) => `${n}=${literal(key[n] as LiteralValue, n)}`).join(',')})`;
  }

  private async prepared(signal: AbortSignal | undefined, countSegment = false): Promise<{ url: string; entityType: EntityTypeInfo | undefined }> {
    const protocol = await this.host.ready(signal);
    return this.render(protocol, countSegment);
  }

  /** Reads one entity (after `key()` or a to-one `nav()`); rejects with ODataError on 404 and other errors. */
  async get(options: ReadOptions = {}): Promise<T> {
    const { url, entityType } = await this.prepared(options.signal);
    return (await this.host.runGet(url, entityType, options)) as T;
  }

  /**
   * Reads every record of every page into an array. Rejects with the first error that loses data
   * (a record that fails to decode, a page that fails for good); pages retried successfully are fine.
   */
  async list(options: StreamOptions = {}): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this.stream(options)) {
      if (item.error === undefined) out.push(item.value);
      else if (!(item.error as { willRetry?: boolean }).willRetry) throw item.error;
    }
    return out;
  }

  /**
   * Streams the records of every page as `{ value }` items, with `{ error }` items for records or pages
   * that failed (see StreamItem); breaking out of the loop or aborting stops all network work.
   */
  stream(options: StreamOptions = {}): AsyncIterable<StreamItem<T>> {
    return {
      [Symbol.asyncIterator]: () => this.host.openStream((signal) => this.prepared(signal), options) as AsyncIterator<StreamItem<T>>,
    };
  }

  /** Iterates page by page; exactly one page is held at a time (no prefetch). */
  pages(options: Omit<StreamOptions, 'prefetch'> = {}): AsyncIterable<Page<T>> {
    return {
      [Symbol.asyncIterator]: () => this.pageItems(options),
    };
  }

  private async *pageItems(options: Omit<StreamOptions, 'prefetch'>): AsyncGenerator<Page<T>> {
    const { url, entityType } = await this.prepared(options.signal);
    yield* this.host.runPages(url, entityType, options) as AsyncGenerator<Page<T>>;
  }

  /** GET `/<EntitySet>/$count` (with `$filter`/`$search` if set): the number of matching records. */
  async countOnly(options: ReadOptions = {}): Promise<number> {
    const { url } = await this.prepared(options.signal, true);
    return this.host.runCount(url, options);
  }
}
