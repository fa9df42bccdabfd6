import { ConfigError, encodePathSegment } from '@sluice/core';
import { propertyType, type EntityTypeInfo, type ServiceMetadata } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import type { StreamOptions } from '../read/stream.js';
import type { Page, StreamItem } from '../read/stream-item.js';
import { makeExpandItem, renderExpand, type ExpandOptions } from './expand.js';
import type { RenderContext } from './filter.js';
import { checkParamName, checkSelect } from './options.js';
import { encodeOptionValue, keyPredicate, type QueryState, type ReadOptions } from './state.js';
import { v2 } from '../v2/protocol.js';
import { v4 } from '../v4/protocol.js';
import { checkWritable } from '../write/entity-writes.js';
import type { WriteHost } from '../write/host.js';

/** What a query needs from its client to build URLs and run (writes and operations included). @internal */
export interface QueryHost extends WriteHost {
  readonly serviceURL: string;
  /** The protocol if the version is known already (explicit or detected), else undefined. */
  knownProtocol(): ODataProtocol | undefined;
  /** Metadata if loaded already. */
  loadedMetadata(): ServiceMetadata | undefined;
  /** Query options of the service URL (`sap-client=100`), sent with every request. */
  readonly serviceParams: readonly (readonly [string, string])[];
  /** Detects the version (and loads metadata when asked to) before a run. */
  protocolReady(signal?: AbortSignal): Promise<ODataProtocol>;
  /** The service's `$metadata`, loaded once. */
  metadata(options?: ReadOptions): Promise<ServiceMetadata>;
  runGet(url: string, entityType: EntityTypeInfo | undefined, options: ReadOptions): Promise<unknown>;
  openStream(
    prepare: (signal: AbortSignal) => Promise<{ url: string; entityType: EntityTypeInfo | undefined }>, options: StreamOptions, batches?: boolean | 'pages',
  ): AsyncIterator<StreamItem<unknown>>;
  runPages(url: string, entityType: EntityTypeInfo | undefined, options: Omit<StreamOptions, 'prefetch'>): AsyncGenerator<Page<unknown>>;
  runCount(url: string, options: ReadOptions): Promise<number>;
}

/**
 * What every query shares: its client, its immutable state, `select`/`expand`/`param`, URL building
 * (`toURL()`) and version detection before a run. {@link Query} (a collection) and
 * {@link EntityQuery} (one entity) add what applies to them.
 */
export abstract class QueryBase<T> {
  // Declared as fields (not constructor parameters) so `@internal` keeps them out of the published types.
  /** @internal */
  protected readonly host: QueryHost;
  /** @internal */
  protected readonly state: QueryState;

  /** @internal */
  constructor(host: QueryHost, state: QueryState) {
    this.host = host;
    this.state = state;
  }

  /** @internal A copy of this query (same class) with some state replaced. */
  protected with(patch: Partial<QueryState>): this {
    const Self = this.constructor as new (host: QueryHost, state: QueryState) => this;
    return new Self(this.host, { ...this.state, ...patch });
  }

  /**
   * This query. A query of a typed client (`createODataClient<Service>()`) is typed by its service; its
   * `untyped` is the same query as a {@link Query} or {@link EntityQuery} of its rows, for APIs that take
   * one (`batch.get()`, changeset writes).
   */
  get untyped(): this {
    return this;
  }

  /** @internal Throws ReadOnlyQueryError when this query carries read options a write to it cannot take. */
  checkWritable(what: string): void {
    checkWritable(this.state, what);
  }

  /** Adds properties to `$select` (paths such as `Category/Name` allowed). */
  select(...properties: (Extract<keyof T, string> | (string & {}))[]): this {
    return this.with({ select: [...this.state.select, ...properties.map((p) => checkSelect(p))] });
  }

  /** Adds a navigation property to `$expand`, with nested options in v4. */
  expand(navigation: Extract<keyof T, string> | (string & {}), nested?: ExpandOptions): this {
    return this.with({ expand: [...this.state.expand, makeExpandItem(navigation, nested)] });
  }

  /** A custom query option such as `sap-client=100`; kept on every page request by the server's next links. */
  param(name: string, value: string | number | boolean): this {
    checkParamName(name);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new ConfigError(`param ${name}`, 'must be a string, number or boolean');
    return this.with({ params: [...this.state.params, [name, String(value)]] });
  }

  /**
   * The request URL (absolute). With `version: 'auto'` before the version is detected, it is built
   * when both versions spell it the same (most paths, keys of strings and integers, `$select`, `$top`);
   * otherwise it throws ConfigError: pass `version`, or `await od.ready()` first.
   */
  toURL(): string {
    const protocol = this.host.knownProtocol();
    if (protocol !== undefined) return this.render(protocol).url;
    const candidates = (['4.0', '2.0'] as const).map((v) => {
      try {
        return this.render(protocolOf(v)).url;
      } catch {
        return undefined;
      }
    });
    if (candidates[0] !== undefined && candidates[0] === candidates[1]) return candidates[0];
    throw new ConfigError('version', "is not known yet and this URL differs between OData v2 and v4: pass version '2.0' or '4.0', or await od.ready() before toURL()");
  }

  /** @internal The path of this query below the service root (`Products(1)/Lines`), for messages. */
  where(): string {
    try {
      const url = this.toURL();
      const path = url.startsWith(this.host.serviceURL) ? url.slice(this.host.serviceURL.length) : url;
      const q = path.indexOf('?');
      return q < 0 ? path : path.slice(0, q);
    } catch {
      return this.state.set;
    }
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
      } else path += keyPredicate(protocol, segment.key, type);
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
    if (s.search !== undefined) {
      options.push(typeof s.search === 'string' ? [...protocol.searchOption(s.search)] : [...protocol.searchExpression(s.search.text)]);
    }
    const own = new Set(s.params.map(([n]) => n));
    // The service URL's own options (sap-client=100) go on every request unless the query sets them.
    for (const [n, v] of this.host.serviceParams) if (!own.has(n)) options.push([n, v]);
    options.push(...s.params.map(([n, v]) => [n, v] as [string, string]));
    const query = options.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
    return { url: this.host.serviceURL + path + (query ? `?${query}` : ''), entityType: type };
  }

  /** @internal Detects the version if needed, then builds the URL. */
  protected async prepared(signal: AbortSignal | undefined, countSegment = false): Promise<{ url: string; entityType: EntityTypeInfo | undefined }> {
    const protocol = await this.host.protocolReady(signal);
    return this.render(protocol, countSegment);
  }
}

function protocolOf(version: '2.0' | '4.0'): ODataProtocol {
  return version === '2.0' ? v2 : v4;
}
