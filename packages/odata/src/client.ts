import { ConfigError, createClient, DEFAULT_RETRY, type Client, type ClientOptions } from '@sluice/core';
import { ODataFormatError } from './errors.js';
import type { EntityTypeInfo, ServiceMetadata } from './metadata/model.js';
import { readMetadataResponse } from './metadata/read.js';
import type { ODataProtocol, ODataVersion } from './protocol/types.js';
import { Query, type QueryHost, type ReadOptions } from './query/query.js';
import { expectJson, send, type ReadContext } from './read/context.js';
import { CollectionStream, pageCollection, type StreamOptions } from './read/stream.js';
import type { Page, StreamItem } from './read/stream-item.js';
import { v2 } from './v2/protocol.js';
import { v4 } from './v4/protocol.js';

/**
 * Options of {@link createODataClient}.
 *
 * @example
 * ```ts
 * createODataClient({ serviceURL: 'https://host/sap/opu/odata/sap/API_PRODUCT_SRV/', version: '2.0', http: { timeout: 10_000 } })
 * ```
 */
export interface ODataClientOptions {
  /** The service root, such as `https://host/odata/v4/demo/` (a trailing slash is added if missing). */
  serviceURL: string;
  /** An existing core client to send through (its plugins, retries and timeouts apply). */
  client?: Client;
  /** Core client options, used to create a client when `client` is not given. */
  http?: ClientOptions;
  /** `'auto'` (default: detected from `$metadata` and response headers), `'2.0'` or `'4.0'`. */
  version?: 'auto' | ODataVersion;
  /** Keep Int64 and Decimal exact as strings (default) or read them as numbers (precision may be lost). */
  largeNumbers?: 'string' | 'number';
  /** Origins besides the service's that next links may point to. */
  allowedOrigins?: readonly string[];
  /** How many times a failed page is requested again (default 3). */
  pageRetries?: number;
}

const PROTOCOLS: Record<ODataVersion, ODataProtocol> = { '2.0': v2, '4.0': v4 };

/** Maps a declared version (`4.0`, `4.01`, `2.0`, `1.0`, `3.0`) to the protocol that reads it. */
function protocolFor(version: string | null | undefined): ODataProtocol | undefined {
  if (!version) return undefined;
  const major = version.trim().split(/[.;]/)[0];
  if (major === '4') return v4;
  if (major === '1' || major === '2' || major === '3') return v2;
  return undefined;
}

/**
 * An OData client (SPEC 4.5): `from(set)` starts a query, `metadata()` reads the service's
 * `$metadata` once. Create it with {@link createODataClient}.
 */
export class ODataClient implements QueryHost {
  /** The service root URL, with a trailing slash. */
  readonly serviceURL: string;
  /** The core client requests go through. */
  readonly http: Client;
  private readonly ownsClient: boolean;
  private readonly origin: string;
  private protocol: ODataProtocol | undefined;
  private readonly auto: boolean;
  private metadataPromise: Promise<ServiceMetadata> | undefined;
  private metadataValue: ServiceMetadata | undefined;
  private readonly largeNumbers: 'string' | 'number';
  private readonly allowedOrigins: ReadonlySet<string>;
  private readonly pageRetries: number;

  /** Prefer {@link createODataClient}. */
  constructor(options: ODataClientOptions) {
    if (options === null || typeof options !== 'object') throw new ConfigError('options', 'must be an object');
    const { serviceURL } = options;
    if (typeof serviceURL !== 'string' || !URL.canParse(serviceURL)) throw new ConfigError('serviceURL', 'must be an absolute http(s) URL');
    const parsed = new URL(serviceURL);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError('serviceURL', `must use http or https, got ${parsed.protocol}`);
    if (parsed.search || parsed.hash) throw new ConfigError('serviceURL', 'must not carry a query or fragment: use query.param() for custom options');
    this.serviceURL = serviceURL.endsWith('/') ? serviceURL : `${serviceURL}/`;
    this.origin = parsed.origin;
    const version = options.version ?? 'auto';
    if (version !== 'auto' && version !== '2.0' && version !== '4.0') throw new ConfigError('version', `must be 'auto', '2.0' or '4.0', got ${String(version)}`);
    this.auto = version === 'auto';
    this.protocol = version === 'auto' ? undefined : PROTOCOLS[version];
    if (options.client !== undefined && options.http !== undefined) throw new ConfigError('http', 'cannot be combined with client');
    this.ownsClient = options.client === undefined;
    // With the service as base URL, core sends same-origin URLs verbatim (no WHATWG re-encoding of ').
    this.http = options.client ?? createClient({ baseURL: this.serviceURL, ...options.http });
    const largeNumbers = options.largeNumbers ?? 'string';
    if (largeNumbers !== 'string' && largeNumbers !== 'number') throw new ConfigError('largeNumbers', `must be 'string' or 'number', got ${String(largeNumbers)}`);
    this.largeNumbers = largeNumbers;
    this.allowedOrigins = new Set((options.allowedOrigins ?? []).map((o) => {
      if (typeof o !== 'string' || !URL.canParse(o)) throw new ConfigError('allowedOrigins', `must be origins such as https://host, got ${String(o)}`);
      return new URL(o).origin;
    }));
    const pageRetries = options.pageRetries ?? 3;
    if (!Number.isSafeInteger(pageRetries) || pageRetries < 0) throw new ConfigError('pageRetries', `must be an integer >= 0, got ${String(pageRetries)}`);
    this.pageRetries = pageRetries;
  }

  /** Starts a query on an entity set; T is the record type. */
  from<T = Record<string, unknown>>(entitySet: string): Query<T> {
    return Query.start<T>(this, entitySet);
  }

  /** The OData version in use, once known (explicit, or detected by a first read or `ready()`). */
  get version(): ODataVersion | undefined {
    return this.protocol?.version;
  }

  /**
   * Detects the version when it is `'auto'` (loading `$metadata`, which also types keys and literals)
   * and resolves with it. Queries call it themselves; call it before `toURL()` in auto mode.
   */
  async ready(signal?: AbortSignal): Promise<ODataProtocol> {
    if (this.protocol !== undefined && (!this.auto || this.metadataValue !== undefined)) return this.protocol;
    try {
      await this.metadata({ signal });
    } catch (error) {
      if (this.protocol === undefined) throw error;
    }
    if (this.protocol === undefined) throw new ODataFormatError('Could not detect the OData version: $metadata and its headers declare none; pass version explicitly', 0);
    return this.protocol;
  }

  /**
   * The service's `$metadata` (EDMX XML, or CSDL JSON if that is what the service answers), fetched once
   * and cached; concurrent callers share one request, and a failure is not cached.
   */
  metadata(options: ReadOptions = {}): Promise<ServiceMetadata> {
    this.metadataPromise ??= this.fetchMetadata(options.signal).then(
      (md) => { this.metadataValue = md; return md; },
      (error: unknown) => { this.metadataPromise = undefined; throw error; },
    );
    return this.metadataPromise;
  }

  private async fetchMetadata(signal: AbortSignal | undefined): Promise<ServiceMetadata> {
    // $metadata is XML (or CSDL JSON) in every version: no JSON format headers, just ask for XML.
    const ctx = { ...this.context(this.protocol ?? v4, undefined), headers: {} };
    const response = await send(ctx, `${this.serviceURL}$metadata`, signal, 'application/xml');
    const declared = protocolFor(response.headers.get('odata-version')) ?? protocolFor(response.headers.get('dataserviceversion'));
    const md = await readMetadataResponse(response);
    this.protocol ??= protocolFor(md.version) ?? declared;
    return md;
  }

  /** @internal */
  knownProtocol(): ODataProtocol | undefined {
    return this.protocol;
  }

  /** @internal */
  loadedMetadata(): ServiceMetadata | undefined {
    return this.metadataValue;
  }

  private context(protocol: ODataProtocol, entityType: EntityTypeInfo | undefined, maxPageSize?: number): ReadContext {
    return {
      client: this.http,
      protocol,
      decode: { largeNumbers: this.largeNumbers, metadata: this.metadataValue, entityType },
      serviceOrigin: this.origin,
      allowedOrigins: this.allowedOrigins,
      headers: protocol.requestHeaders(this.largeNumbers, maxPageSize),
      pageRetries: this.pageRetries,
      retry: this.http.options.retry ?? DEFAULT_RETRY,
    };
  }

  /** @internal */
  async runGet(url: string, entityType: EntityTypeInfo | undefined, options: ReadOptions): Promise<unknown> {
    const protocol = this.protocol!;
    const ctx = this.context(protocol, entityType);
    const response = await send(ctx, url, options.signal);
    await expectJson(response);
    return protocol.decodeEntity(await response.json(), ctx.decode);
  }

  /** @internal */
  openStream(prepare: (signal: AbortSignal) => Promise<{ url: string; entityType: EntityTypeInfo | undefined }>, options: StreamOptions): AsyncIterator<StreamItem<unknown>> {
    return new CollectionStream(async (signal) => {
      const { url, entityType } = await prepare(signal);
      return { url, ctx: this.context(this.protocol!, entityType, checkPageSize(options.maxPageSize)) };
    }, options);
  }

  /** @internal */
  async *runPages(url: string, entityType: EntityTypeInfo | undefined, options: Omit<StreamOptions, 'prefetch'>): AsyncGenerator<Page<unknown>> {
    for await (const load of pageCollection(this.context(this.protocol!, entityType, checkPageSize(options.maxPageSize)), url, options)) {
      const value: unknown[] = [];
      const errors: Error[] = [];
      for (const item of load.drain()) {
        if (item.error === undefined) value.push(item.value);
        else errors.push(item.error);
      }
      yield { value, errors, count: load.info?.count, url: load.url, nextLink: load.info?.nextLink };
    }
  }

  /** @internal */
  async runCount(url: string, options: ReadOptions): Promise<number> {
    const ctx = this.context(this.protocol!, undefined);
    const response = await send(ctx, url, options.signal, 'text/plain');
    const text = (await response.text()).trim();
    // OData 4.0 Part 2 section 11.2.9 (and v2 URI conventions 3.2.1): $count answers a bare integer.
    if (!/^\d+$/.test(text)) throw new ODataFormatError(`$count answered ${JSON.stringify(text.slice(0, 40))}, not an integer`, response.status);
    return Number(text);
  }

  /** Closes the core client if this OData client created it. */
  async close(): Promise<void> {
    if (this.ownsClient) await this.http.close();
  }
}

function checkPageSize(n: number | undefined): number | undefined {
  if (n !== undefined && (!Number.isSafeInteger(n) || n < 1)) throw new ConfigError('maxPageSize', `must be an integer >= 1, got ${String(n)}`);
  return n;
}

/**
 * Creates an OData client (SPEC 4.5) on an existing core client or on core options.
 *
 * @example
 * ```ts
 * import { createODataClient } from '@sluice/odata'
 * const od = createODataClient({ serviceURL: 'https://services.odata.org/V4/TripPinService/' })
 * const people = await od.from<{ UserName: string }>('People').select('UserName').top(3).list()
 * ```
 */
export function createODataClient(options: ODataClientOptions): ODataClient {
  return new ODataClient(options);
}
