import type { SluiceResponse } from '@sluice/core';
import type { LinkPolicy } from '../links/policy.js';
import type { ServiceMetadata } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import type { ReadLimits } from '../read/context.js';
import type { PrecisionGuard } from '../read/precision.js';
import type { ODataSpan } from '../telemetry.js';

/** One request a write or an operation sends (the client adds nothing but its plugins and retries). @internal */
export interface ExchangeInit {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  timeout?: number | false | undefined;
  deadline?: number | Date | false | undefined;
  /** What the request is, for its span (core's `otel()` plugin). */
  span?: ODataSpan | undefined;
}

/** How the client writes: number mode, method tunnelling. @internal */
export interface WriteSettings {
  readonly largeNumbers: 'string' | 'number';
  /** Instants as ISO strings (default) or `Date`s, in what writes return. */
  readonly dates?: 'string' | 'Date' | undefined;
  /** Send PATCH/MERGE, PUT and DELETE as POST with `X-HTTP-Method`. */
  readonly tunnel: boolean;
  /** The client's size limits (`maxRecordBytes`, `maxPageBytes`): a batch answer is bound by them too. */
  readonly limits?: Partial<ReadLimits> | undefined;
  /** Most `307`/`308` redirects a write follows (the core client's `maxRedirects`). */
  readonly maxRedirects?: number | undefined;
  /** The client's watch over Int64/Decimal precision: answers are parsed as reads are (v4 services that ignore IEEE754Compatible). */
  readonly precision?: PrecisionGuard | undefined;
}

/** What writes and operations need from the OData client. @internal */
export interface WriteHost {
  readonly serviceURL: string;
  /** Query options of the service URL (`sap-client=100`), sent with every request. */
  readonly serviceParams: readonly (readonly [string, string])[];
  /** Where server-given links (Location, status URLs) may lead. */
  readonly links: LinkPolicy;
  protocolReady(signal?: AbortSignal): Promise<ODataProtocol>;
  loadedMetadata(): ServiceMetadata | undefined;
  /** Sends one request through the core client, without throwing on an error status; checks the declared version. */
  exchange(init: ExchangeInit): Promise<SluiceResponse>;
  writeSettings(): WriteSettings;
}

/**
 * Per-call options of every write and operation call: like reads, `headers`, `signal` and `timeout`
 * apply to the request it sends.
 */
export interface WriteOptions {
  /** Cancels the write. A write already received by the server may still take effect. */
  signal?: AbortSignal | undefined;
  /** Headers for this request; they win over the client's (not over content type and version headers). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Per-attempt timeout in ms (the core's `timeout`), or false. */
  timeout?: number | false | undefined;
  /** Total time for the request with its retries (the core's `deadline`): ms, an absolute `Date`, or false. */
  deadline?: number | Date | false | undefined;
  /** Send the method as POST with `X-HTTP-Method` (gateways and proxies that pass only GET and POST). */
  tunnel?: boolean | undefined;
}
