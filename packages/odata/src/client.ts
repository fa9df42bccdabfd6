import { checkOptionKeys, ConfigError, csrf, DEFAULT_RETRY, type Client, type Plugin, type SluiceResponse } from '@sluice/core';
import { checkCallOptions } from './call-options.js';
import { checkBoolean, checkCount, httpClient, OPTION_KEYS, type ODataClientOptions } from './client-options.js';
import { ODataFormatError, ODataVersionError } from './errors.js';
import { LinkPolicy } from './links/policy.js';
import type { EntityTypeInfo, ServiceMetadata } from './metadata/model.js';
import { DEFAULT_MAX_METADATA_BYTES, readMetadataResponse } from './metadata/read.js';
import { fromServiceModel, type ServiceModel } from './metadata/service-model.js';
import type { ODataProtocol, ODataVersion } from './protocol/types.js';
import { encodeOptionValue, type ReadOptions } from './query/state.js';
import { EntityQuery, Query } from './query/query.js';
import { expectJson, send, type ReadContext } from './read/context.js';
import { toODataError } from './read/error-body.js';
import { PrecisionGuard } from './read/precision.js';
import { guardParser, readJsonAnswer } from './read/json-answer.js';
import { CollectionStream, pageCollection, type StreamOptions } from './read/stream.js';
import type { Page, StreamItem } from './read/stream-item.js';
import { v4 } from './v4/protocol.js';
import { declaredBy, PROTOCOLS, protocolFor, protocolOfServiceDocument } from './version.js';
import { decodeV4Record, v4Decodes } from './v4/values.js';
import { ActionCall, FunctionCall, paramsOf } from './operations/call.js';
import { withETag } from './write/etag.js';
import type { ExchangeInit, WriteSettings } from './write/host.js';
import { Batch } from './batch/batch.js';
import { entitySetOf, PageCounter, spanContext, type ODataSpan } from './telemetry.js';

/**
 * An OData client (SPEC 4.5): `from(set)` starts a query, `singleton(name)` addresses a singleton,
 * `metadata()` reads the service's `$metadata` once. Create it with {@link createODataClient}.
 */
export class ODataClient {
  /** The service root URL, with a trailing slash and without its query. */
  readonly serviceURL: string;
  /** Query options of the given service URL (`sap-client=100`), sent with every request. */
  readonly serviceParams: readonly (readonly [string, string])[];
  /** The core client requests go through. */
  readonly http: Client;
  /** Where server-given links may lead (next links, `Location`, status URLs): see {@link LinkPolicy}. */
  readonly links: LinkPolicy;
  private readonly ownsClient: boolean;
  private protocol: ODataProtocol | undefined;
  private readonly loadMetadataFirst: boolean;
  private versionVerified = false;
  private detecting: Promise<ODataProtocol> | undefined;
  private metadataPromise: Promise<ServiceMetadata> | undefined;
  private metadataValue: ServiceMetadata | undefined;
  private readonly largeNumbers: 'string' | 'number';
  private readonly precision: PrecisionGuard;
  private readonly dates: 'string' | 'Date';
  private readonly tunnel: boolean;
  private readonly defaults: { pageRetries: number; maxPages: number | undefined; maxRecordBytes: number | undefined; maxPageBytes: number | undefined };
  private readonly maxMetadataBytes: number;

  /** Prefer {@link createODataClient}. */
  constructor(options: ODataClientOptions) {
    if (options === null || typeof options !== 'object') throw new ConfigError('options', 'must be an object');
    checkOptionKeys('', options, OPTION_KEYS, { baseURL: 'serviceURL', url: 'serviceURL', odataVersion: 'version' });
    const { serviceURL } = options;
    if (typeof serviceURL !== 'string' || !URL.canParse(serviceURL)) throw new ConfigError('serviceURL', 'must be an absolute http(s) URL');
    const parsed = new URL(serviceURL);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError('serviceURL', `must use http or https, got ${parsed.protocol}`);
    if (parsed.hash) throw new ConfigError('serviceURL', 'must not carry a fragment');
    const q = serviceURL.indexOf('?');
    const root = (q < 0 ? serviceURL : serviceURL.slice(0, q)).replace(/#.*$/, '');
    this.serviceURL = root.endsWith('/') ? root : `${root}/`;
    this.serviceParams = q < 0 ? [] : [...new URLSearchParams(serviceURL.slice(q + 1))];
    const version = options.version ?? 'auto';
    if (version !== 'auto' && version !== '2.0' && version !== '4.0') throw new ConfigError('version', `must be 'auto', '2.0' or '4.0', got ${String(version)}`);
    this.protocol = version === 'auto' ? undefined : PROTOCOLS[version];
    const dates = options.dates ?? 'string';
    if (dates !== 'string' && dates !== 'Date') throw new ConfigError('dates', `must be 'string' or 'Date', got ${String(dates)}`);
    this.dates = dates;
    this.loadMetadataFirst = (checkBoolean(options.loadMetadata, 'loadMetadata') ?? false) || dates === 'Date';
    if (options.metadata !== undefined) {
      const given: unknown = options.metadata;
      const isParsed = typeof given === 'object' && given !== null && (given as ServiceMetadata).entitySets instanceof Map;
      const md = isParsed ? given as ServiceMetadata : fromServiceModel(given as ServiceModel);
      this.metadataValue = md;
      this.metadataPromise = Promise.resolve(md);
      this.protocol ??= protocolFor(md.version);
    }
    if (options.client !== undefined && options.http !== undefined) throw new ConfigError('http', 'cannot be combined with client');
    this.ownsClient = options.client === undefined;
    // With the service as base URL, core sends same-origin URLs verbatim (no WHATWG re-encoding of ').
    const csrfMode = options.csrf ?? 'auto';
    if (csrfMode !== 'auto' && typeof csrfMode !== 'boolean') throw new ConfigError('csrf', `must be 'auto', true or false, got ${String(csrfMode)}`);
    if (options.client !== undefined && csrfMode === true && options.client.plugin('csrf') === undefined) {
      throw new ConfigError('csrf', 'cannot be added to a client you pass: create it with plugins: [csrf()] from @sluice/core');
    }
    const plugins: Plugin[] = [...(options.http?.plugins ?? [])];
    if (csrfMode !== false && !plugins.some((p) => p.name === 'csrf')) {
      // The token is fetched from the service root, with its own options (SAP sessions are per sap-client).
      const query = this.serviceParams.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
      plugins.push(csrf({ mode: csrfMode === true ? 'always' : 'auto', fetchURL: this.serviceURL + (query ? `?${query}` : '') }));
    }
    this.http = options.client ?? httpClient({ baseURL: this.serviceURL, ...options.http, plugins });
    this.tunnel = checkBoolean(options.tunnel, 'tunnel') ?? false;
    const largeNumbers = options.largeNumbers ?? 'string';
    if (largeNumbers !== 'string' && largeNumbers !== 'number') throw new ConfigError('largeNumbers', `must be 'string' or 'number', got ${String(largeNumbers)}`);
    this.largeNumbers = largeNumbers;
    this.links = new LinkPolicy(this.serviceURL, { allowedOrigins: options.allowedOrigins, rebaseLinks: options.rebaseLinks }, this.http.events);
    this.precision = new PrecisionGuard(this.http.events, largeNumbers);
    this.defaults = {
      pageRetries: checkCount(options.pageRetries, 'pageRetries', 0) ?? 3,
      maxPages: checkCount(options.maxPages, 'maxPages', 1),
      maxRecordBytes: checkCount(options.maxRecordBytes, 'maxRecordBytes', 1),
      maxPageBytes: checkCount(options.maxPageBytes, 'maxPageBytes', 1),
    };
    this.maxMetadataBytes = checkCount(options.maxMetadataBytes, 'maxMetadataBytes', 1) ?? DEFAULT_MAX_METADATA_BYTES;
  }

  /** What `JSON.stringify` shows: the service, the version and the core client's redacted options (no credential). */
  toJSON(): Record<string, unknown> {
    return { serviceURL: this.serviceURL, version: this.protocol?.version ?? 'auto', http: this.http.toJSON() };
  }

  /** What `console.log(od)` and `util.inspect(od)` show: the same as {@link ODataClient.toJSON}. */
  [Symbol.for('nodejs.util.inspect.custom')](depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
    return `ODataClient ${inspect(this.toJSON(), { ...options, depth: Math.max(depth, 3) })}`;
  }

  /** Starts a query on an entity set; T is the record type. */
  from<T = Record<string, unknown>>(entitySet: string): Query<T> {
    return Query.start<T>(this, entitySet);
  }

  /** Addresses a singleton (OData v4 `Me`, `Company`): read it with `get()`, navigate with `nav()`/`navMany()`. */
  singleton<T = Record<string, unknown>>(name: string): EntityQuery<T> {
    return EntityQuery.singleton<T>(this, name);
  }

  /**
   * An unbound action (an action import; a v2 function import, with the method `$metadata` declares):
   * add parameters with `params` or `parameter()`, send with `execute()`. T is the returned value's type.
   */
  action<T = unknown>(name: string, params?: Readonly<Record<string, unknown>>): ActionCall<T> {
    return new ActionCall<T>(this, name, undefined, paramsOf(params));
  }

  /** An unbound function (a function import): parameters go into the URL as escaped literals. */
  function<T = unknown>(name: string, params?: Readonly<Record<string, unknown>>): FunctionCall<T> {
    return new FunctionCall<T>(this, name, undefined, paramsOf(params));
  }

  /**
   * Starts a `$batch` (SPEC 4.5): add reads with `get()` and atomic groups of writes with `changeset()`,
   * then `send()` them in one request (split at `maxOperations`).
   */
  batch(): Batch {
    return new Batch(this);
  }

  /** This client (the untyped view of a client created with `createODataClient<Service>()`). */
  get untyped(): ODataClient {
    return this;
  }

  /** The OData version in use, once known (explicit, or detected by a first read or `ready()`). */
  get version(): ODataVersion | undefined {
    return this.protocol?.version;
  }

  /**
   * Resolves with the OData version in use (`'2.0'` or `'4.0'`; also {@link ODataClient.version} from then
   * on). With `version: 'auto'` it detects the version from the headers of a GET of the service root (the
   * service document, small); with `loadMetadata: true` it loads `$metadata` first. Queries call it
   * themselves: it is needed only to know the version ahead (such as before `toURL()` of a `$count`).
   */
  async ready(signal?: AbortSignal): Promise<ODataVersion> {
    return (await this.protocolReady(signal)).version;
  }

  /** The protocol in use, detected (and `$metadata` loaded) as {@link ODataClient.ready} says. @internal */
  async protocolReady(signal?: AbortSignal): Promise<ODataProtocol> {
    if (this.loadMetadataFirst && this.metadataValue === undefined) {
      try {
        await this.metadata({ signal });
      } catch (error) {
        if (this.protocol === undefined) throw error;
      }
    }
    if (this.protocol !== undefined) return this.protocol;
    this.detecting ??= this.detect(signal).finally(() => { this.detecting = undefined; });
    return this.detecting;
  }

  private async detect(signal: AbortSignal | undefined): Promise<ODataProtocol> {
    const query = this.serviceParams.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
    const response = await this.http.request({
      method: 'GET', path: this.serviceURL + (query ? `?${query}` : ''), signal, throwHttpErrors: false,
      headers: { accept: 'application/json', 'odata-maxversion': '4.0', maxdataserviceversion: '2.0' }, context: spanContext({ type: 'service_document' }),
    });
    if (response.status >= 400) throw await toODataError(response);
    const declared = declaredBy(response);
    let found: { protocol: ODataProtocol; from: 'header' | 'service-document'; detail: string } | undefined;
    if (declared !== undefined) {
      await response.cancel();
      found = { protocol: declared.protocol, from: 'header', detail: declared.header };
    } else {
      // No version header: tell by the service document's shape (v2 `d.EntitySets`, v4 `value` + context).
      const byShape = protocolOfServiceDocument(await response.text());
      if (byShape !== undefined) found = { protocol: byShape, from: 'service-document', detail: `the service document's JSON shape (no version header)` };
    }
    if (found === undefined) {
      // The root says nothing (an Atom XML service document, a gateway stripping headers): $metadata declares its version.
      const none = "Could not detect the OData version: the service root declares none (no OData-Version or DataServiceVersion header, no JSON service document)";
      let md: ServiceMetadata;
      try {
        md = await this.metadata({ signal });
      } catch (cause) {
        if (signal?.aborted) throw cause;
        throw new ODataFormatError(`${none} and $metadata could not be read (${cause instanceof Error ? cause.message : String(cause)}); pass version '2.0' or '4.0'`, response.status, { cause });
      }
      const byMetadata = protocolFor(md.version) ?? this.protocol;
      if (byMetadata === undefined) throw new ODataFormatError(`${none} nor does $metadata; pass version '2.0' or '4.0'`, response.status);
      // Reading $metadata settled the version and reported it.
      this.versionVerified = true;
      return byMetadata;
    }
    this.protocol ??= found.protocol;
    this.versionVerified = true;
    this.http.events.emit('odata.version.detected', { version: this.protocol.version, from: found.from, detail: found.detail });
    return this.protocol;
  }

  /**
   * The service's `$metadata` (EDMX XML, or CSDL JSON if that is what the service answers), fetched once
   * and cached; concurrent callers share one request, and a failure is not cached.
   */
  metadata(options: ReadOptions = {}): Promise<ServiceMetadata> {
    checkCallOptions('metadata()', '$metadata', options, 'read');
    this.metadataPromise ??= this.fetchMetadata(options).then(
      (md) => { this.metadataValue = md; return md; },
      (error: unknown) => { this.metadataPromise = undefined; throw error; },
    );
    return this.metadataPromise;
  }

  private async fetchMetadata(options: ReadOptions): Promise<ServiceMetadata> {
    // $metadata is XML (or CSDL JSON) in every version: no JSON format headers, just ask for XML.
    const ctx = { ...this.context(this.protocol ?? v4, undefined, options, { type: 'metadata' }), headers: { ...options.headers } };
    const query = this.serviceParams.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
    const response = await send(ctx, `${this.serviceURL}$metadata${query ? `?${query}` : ''}`, options.signal, 'application/xml');
    const declared = declaredBy(response)?.protocol;
    const md = await readMetadataResponse(response, this.maxMetadataBytes);
    if (this.protocol === undefined) {
      const byModel = protocolFor(md.version);
      this.protocol = byModel ?? declared;
      if (this.protocol !== undefined) {
        this.http.events.emit('odata.version.detected', {
          version: this.protocol.version, from: 'metadata',
          detail: byModel !== undefined ? `$metadata declares version ${md.version ?? ''}` : `the $metadata response's version header`,
        });
      }
    }
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

  /** Fails on the first response whose declared version contradicts the one in use. */
  private readonly checkVersion = (response: SluiceResponse): void => {
    if (this.versionVerified || this.protocol === undefined) return;
    const declared = declaredBy(response);
    if (declared === undefined) return;
    if (declared.protocol !== this.protocol) {
      throw new ODataVersionError(
        `The service speaks OData ${declared.protocol.version} (${declared.header}) but the client was created with version '${this.protocol.version}': pass version '${declared.protocol.version}' or 'auto'`,
        declared.protocol.version,
      );
    }
    this.versionVerified = true;
  };

  private context(protocol: ODataProtocol, entityType: EntityTypeInfo | undefined, options: StreamOptions = {}, span?: ODataSpan, paged = false): ReadContext {
    const d = this.defaults;
    return {
      span: span === undefined ? undefined : { base: span, pages: paged ? new PageCounter() : undefined },
      client: this.http,
      // v4 records are handed out as parsed unless dates are to become Date objects or the type has Doubles ("INF", "NaN").
      protocol: protocol.decodeRecord === undefined && v4Decodes({ dates: this.dates, entityType, metadata: this.metadataValue }) ? { ...protocol, decodeRecord: decodeV4Record } : protocol,
      decode: { largeNumbers: this.largeNumbers, dates: this.dates, metadata: this.metadataValue, entityType },
      links: this.links,
      metadataURL: `${this.serviceURL}$metadata`,
      serviceParams: this.serviceParams,
      headers: { ...options.headers, ...protocol.requestHeaders(this.largeNumbers, checkCount(options.maxPageSize, 'maxPageSize', 1)) },
      call: { timeout: options.timeout, deadline: absoluteDeadline(options.deadline) },
      pageRetries: checkCount(options.pageRetries, 'pageRetries', 0) ?? d.pageRetries,
      retry: this.http.options.retry ?? DEFAULT_RETRY,
      maxPages: checkCount(options.maxPages, 'maxPages', 1) ?? d.maxPages,
      limits: {
        maxRecordBytes: checkCount(options.maxRecordBytes, 'maxRecordBytes', 1) ?? d.maxRecordBytes,
        maxPageBytes: checkCount(options.maxPageBytes, 'maxPageBytes', 1) ?? d.maxPageBytes,
      },
      checkVersion: this.checkVersion,
      precision: this.precision,
    };
  }

  /** @internal */
  async runGet(url: string, entityType: EntityTypeInfo | undefined, options: ReadOptions): Promise<unknown> {
    const protocol = this.protocol!;
    const ctx = this.context(protocol, entityType, options, { type: 'read', entitySet: entitySetOf(this.serviceURL, url) });
    const response = await send(ctx, url, options.signal);
    await expectJson(response);
    // Parsed as reads are: Int64/Decimal exact on v4 services that ignore IEEE754Compatible.
    const body = await readJsonAnswer(response, { parse: guardParser(this.precision, protocol.version, entityType), error: 'DecodeError' });
    return withETag(protocol.decodeEntity(body, ctx.decode), response.headers.get('etag'));
  }

  /** @internal */
  async exchange(init: ExchangeInit): Promise<SluiceResponse> {
    const response = await this.http.request({
      method: init.method, path: init.url, headers: init.headers, body: init.body, signal: init.signal, throwHttpErrors: false,
      ...(init.timeout !== undefined ? { timeout: init.timeout } : {}),
      ...(init.deadline !== undefined ? { deadline: init.deadline } : {}),
      ...(init.span !== undefined ? { context: spanContext(init.span) } : {}),
    });
    try {
      this.checkVersion(response);
    } catch (error) {
      await response.cancel();
      throw error;
    }
    return response;
  }

  /** @internal */
  writeSettings(): WriteSettings {
    return { largeNumbers: this.largeNumbers, dates: this.dates, tunnel: this.tunnel, maxRedirects: this.http.options.maxRedirects, limits: { maxRecordBytes: this.defaults.maxRecordBytes, maxPageBytes: this.defaults.maxPageBytes }, precision: this.precision };
  }

  /** @internal */
  openStream(
    prepare: (signal: AbortSignal) => Promise<{ url: string; entityType: EntityTypeInfo | undefined }>, options: StreamOptions, batches: boolean | 'pages' = false,
    adapt?: (ctx: ReadContext) => ReadContext,
  ): AsyncIterator<StreamItem<unknown>> {
    // The read's deadline counts from its start, version detection included.
    const read = { ...options, deadline: absoluteDeadline(options.deadline) };
    return new CollectionStream(async (signal) => {
      const { url, entityType } = await prepare(signal);
      const ctx = this.context(this.protocol!, entityType, read, { type: 'read', entitySet: entitySetOf(this.serviceURL, url) }, true);
      return { url, ctx: adapt === undefined ? ctx : adapt(ctx) };
    }, options, batches);
  }

  /** @internal */
  async *runPages(url: string, entityType: EntityTypeInfo | undefined, options: Omit<StreamOptions, 'prefetch'>): AsyncGenerator<Page<unknown>> {
    const span = { type: 'read' as const, entitySet: entitySetOf(this.serviceURL, url) };
    for await (const load of pageCollection(this.context(this.protocol!, entityType, options, span, true), url, options.signal)) {
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
    const ctx = this.context(this.protocol!, undefined, options, { type: 'count', entitySet: entitySetOf(this.serviceURL, url) });
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

/** A read's deadline as one absolute time, so that every page request of the read shares it. */
function absoluteDeadline(deadline: number | Date | false | undefined): Date | false | undefined {
  if (deadline === undefined || deadline === false || deadline instanceof Date) return deadline;
  if (typeof deadline !== 'number' || !Number.isFinite(deadline) || deadline <= 0) throw new ConfigError('deadline', `must be a number of ms > 0, a Date or false, got ${String(deadline)}`);
  return new Date(Date.now() + deadline);
}
