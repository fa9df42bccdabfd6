/**
 * `@sluice/core`: the HTTP client every sluice package stands on. Base-URL resolution (SPEC 4.3),
 * retries with backoff and a retry budget, rate limiting, circuit breaking, a bulkhead, per-attempt timeouts,
 * cancellation, safe redirects, plugins and typed errors, over a fast undici transport.
 *
 * @packageDocumentation
 */
export { Client, createClient, type RequestOptions, type ShortcutOptions } from './client.js';
export type { ClientOptions, ResolvedOptions, HeadersInput, Plugin, PluginRequest, PluginVerdict, PluginClient } from './types.js';
export { DeadlineError, abortErrorFor, type DeadlineInit } from './deadline.js';
export { readErrorBody, errorResponseInit, type ErrorBody } from './error-body.js';
export { checkOptionKeys } from './option-keys.js';
export { KnownSecrets } from './known-secrets.js';
export { EventSink, type SluiceEventMap, type SluiceEvent, type SluiceEventOf, type SluiceEventListener } from './events.js';
export {
  SluiceError, ConfigError, HttpError, TimeoutError, AbortError, NetworkError, DecodeError, RedirectError,
  CircuitOpenError, RateLimitError, BulkheadRejectedError,
} from './errors.js';
export { SluiceResponse, type BodyWatch, type SluiceResponseInit } from './response.js';
export { ResponseHeaders } from './headers.js';
export { DEFAULT_RETRY, backoffDelay, parseRetryAfter, type RetryOptions } from './retry.js';
export { sleep } from './sleep.js';
export {
  TokenBucket, isRateLimiter, CircuitBreakers, OriginCircuit, RetryBudget, Bulkhead, OriginPauses, WaitQueue, SlidingCounter, RESILIENCE_DEFAULTS,
  type CircuitState, type CircuitStateChange, type CircuitTicket, type AttemptOutcome, type CircuitBreakerSettings,
  type RateLimitOptions, type RateLimiter, type CircuitBreakerOptions, type RetryBudgetOptions, type BulkheadOptions, type PauseOnRetryAfterOptions,
  type ResolvedResilience,
} from './resilience/index.js';
export {
  redactURL, redactText, redactHeaders, describeRequest, addSensitiveParams, isSensitiveParam, REDACTED,
  CREDENTIAL_HEADERS, SENSITIVE_PARAM_NAMES, SENSITIVE_PARAM_PARTS,
} from './redact.js';
export {
  URLNormalization, isAPIBase, resolveURL, type ResolveOptions, type ResolvedURL, type ResolutionStrategy,
} from './url/resolve.js';
export { resolveReference } from './url/rfc3986.js';
export { PathBuilder, encodePathSegment } from './url/path-builder.js';
export { encodeQueryComponent, serializeQuery, type QueryInit, type QueryValue } from './url/query.js';
export { TransportTimeoutError, isTransportTimeout, type Transport, type TransportRequest, type TransportResponse, type TransportBody, type BodyInit } from './transport/types.js';
export { UndiciTransport, type UndiciDispatcher, type UndiciTransportOptions } from './transport/undici.js';
export { ProxyError, type ProxyOption } from './transport/proxy.js';
export type { TLSOptions, TLSMaterial } from './transport/tls.js';
export { FetchTransport, type FetchTransportOptions } from './transport/fetch.js';
export { otel, type OtelOptions, type OtelTracerProvider, type OtelMeterProvider } from './otel.js';
export { SPAN_ATTRIBUTES, type SpanAttributes, type SpanAttributeValue } from './span-attributes.js';
export { csrf, CookieStore, CsrfTokenError, type CsrfOptions } from './csrf/index.js';
