import { ConfigError, createClient, type Client, type ClientOptions } from '@sluice/core';
import type { ServiceMetadata } from './metadata/model.js';
import type { ServiceModel } from './metadata/service-model.js';
import type { ODataVersion } from './protocol/types.js';

/**
 * Options of {@link createODataClient}.
 *
 * @example
 * ```ts
 * createODataClient({ serviceURL: 'https://host/sap/opu/odata/sap/API_PRODUCT_SRV/?sap-client=100', version: '2.0', http: { timeout: 10_000 } })
 * ```
 */
export interface ODataClientOptions {
  /**
   * The service root, such as `https://host/odata/v4/demo/` (a trailing slash is added if missing). Its
   * query options (`?sap-client=100`) are kept on every request, next links included.
   */
  serviceURL: string;
  /** An existing core client to send through (its plugins, retries and timeouts apply). */
  client?: Client | undefined;
  /** Core client options, used to create a client when `client` is not given. */
  http?: ClientOptions | undefined;
  /**
   * `'auto'` (default: detected from the first response's `OData-Version` / `DataServiceVersion` header,
   * a GET of the service root), `'2.0'` or `'4.0'`. A declared version the service contradicts fails on
   * the first response with ODataVersionError.
   */
  version?: 'auto' | ODataVersion | undefined;
  /**
   * Load `$metadata` before the first query (default false). With it, keys and filter literals are typed
   * by the model and v2 values are decoded by property type (`Precision`, `sap:display-format`); without it nothing large is downloaded
   * implicitly (call `metadata()` yourself whenever you want it).
   */
  loadMetadata?: boolean | undefined;
  /**
   * The service's model, known ahead (a {@link ServiceModel} that `sluice generate --runtime` writes, or a
   * parsed {@link ServiceMetadata}): keys, filter literals and writes are typed by it and `$metadata` is
   * never downloaded; with `version: 'auto'` the version it declares is used (no detection request).
   */
  metadata?: ServiceModel | ServiceMetadata | undefined;
  /** Keep Int64 and Decimal exact as strings (default) or read them as numbers (precision may be lost). */
  largeNumbers?: 'string' | 'number' | undefined;
  /**
   * Instants (`Edm.DateTimeOffset`, v2 `Edm.DateTime`) as ISO 8601 strings (`'string'`, default) or as
   * `Date` objects (`'Date'`), the same on v2 and v4 (see the README's "Values" table). `'Date'` needs to
   * know which properties are instants, so it loads `$metadata` before the first query, as
   * `loadMetadata: true` does.
   */
  dates?: 'string' | 'Date' | undefined;
  /** Origins besides the service's that server-given links (next links, Location, status URLs) may point to. */
  allowedOrigins?: readonly string[] | undefined;
  /** Rebase links on another origin whose path is under the service root onto the service's origin (default true). */
  rebaseLinks?: boolean | undefined;
  /** How many times a page whose body broke is resumed (default 3); error statuses are the core's to retry. */
  pageRetries?: number | undefined;
  /** End a collection read with PagingError after this many pages (default: no limit). */
  maxPages?: number | undefined;
  /** Largest record accepted, in bytes (default: no limit); larger ends the read with ResponseSizeError. */
  maxRecordBytes?: number | undefined;
  /** Largest page body accepted, in bytes (default: no limit). */
  maxPageBytes?: number | undefined;
  /**
   * Largest `$metadata` document accepted, in bytes (default 64 MiB); a larger one fails `metadata()` with
   * ResponseSizeError (`limit` `'maxMetadataBytes'`) instead of filling memory.
   */
  maxMetadataBytes?: number | undefined;
  /**
   * CSRF tokens for writes (SAP gateways), through core's `csrf()` plugin on the client this OData client
   * creates: `'auto'` (default) fetches a token once the service answers a write with `403` and
   * `X-CSRF-Token: Required`, `true` fetches before the first write, `false` never. With `client` given,
   * add `csrf()` to its plugins yourself.
   */
  csrf?: 'auto' | boolean | undefined;
  /** Send PATCH/MERGE, PUT and DELETE as POST with `X-HTTP-Method` (gateways that pass only GET and POST). Default false. */
  tunnel?: boolean | undefined;
}

/** Every key {@link ODataClientOptions} accepts. */
export const OPTION_KEYS = [
  'serviceURL', 'client', 'http', 'version', 'loadMetadata', 'metadata', 'largeNumbers', 'dates', 'allowedOrigins', 'rebaseLinks',
  'pageRetries', 'maxPages', 'maxRecordBytes', 'maxPageBytes', 'maxMetadataBytes', 'csrf', 'tunnel',
] as const;

/**

/** Creates the core client from the `http` options; a ConfigError names its option under `http.` (`http.retry.limit`). */
export function httpClient(options: ClientOptions): Client {
  try {
    return createClient(options);
  } catch (error) {
    if (!(error instanceof ConfigError) || error.option.startsWith('http')) throw error;
    const problem = error.message.slice(error.option.length + 1).replace(/did you mean (?!http\.)/, 'did you mean http.');
    throw new ConfigError(`http.${error.option}`, problem, { cause: error });
  }
}

/** A boolean option, or undefined when not given; else ConfigError naming it. */
export function checkBoolean(value: unknown, name: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw new ConfigError(name, `must be a boolean, got ${String(value)}`);
  return value;
}

/** An integer option >= `min`, or undefined when not given; else ConfigError naming it. */
export function checkCount(n: number | undefined, name: string, min: number): number | undefined {
  if (n !== undefined && (!Number.isSafeInteger(n) || n < min)) throw new ConfigError(name, `must be an integer >= ${min}, got ${String(n)}`);
  return n;
}
