import { errorResponseInit, HttpError, redactText, type Client, type SluiceResponse } from '@sluice/core';
import { parseHttpResponse } from '../batch/multipart-parse.js';
import { ODataError, ODataFormatError } from '../errors.js';
import type { LinkKind } from '../links/policy.js';
import { parseErrorBody, toODataError } from '../read/error-body.js';
import { spanContext } from '../telemetry.js';
import { parseJsonText, readJsonAnswer, type BodyParser } from '../read/json-answer.js';

/** How a poller resolves server-given links and shapes a result: the OData client's link policy and protocol, or a core client's origin. @internal */
export interface AsyncResultHost {
  /** The URL to request for a link, or ForeignOriginError (the link policy). */
  resolve(kind: LinkKind, link: string, base: string): string;
  /** A link only reported (a created entity's `Location`): resolved, never refused. */
  report(kind: LinkKind, link: string, base: string): string;
  /** The value of a JSON result body (v4 `{"value": …}` unwrapped, v2 `d` unwrapped and decoded). */
  decode(json: unknown): unknown;
  /** How a result body's text is parsed (an OData client's precision guard), default `JSON.parse`. */
  readonly parse?: BodyParser | undefined;
}

/** The final response of the operation as the monitor embedded it (OData 4.01 Part 1 section 11.6: `application/http`). @internal */
export interface EmbeddedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Whether the monitor answered with the final response embedded as `application/http`. @internal */
export function isEmbedded(response: SluiceResponse): boolean {
  return /^\s*application\/http\b/i.test(response.headers.get('content-type') ?? '');
}

/** Reads the embedded response out of the monitor's answer; a body that is no HTTP response is an ODataFormatError. @internal */
export async function readEmbedded(response: SluiceResponse): Promise<EmbeddedResponse> {
  const bytes = Buffer.from(await response.bytes());
  try {
    return parseHttpResponse(bytes, response.status);
  } catch (error) {
    throw new ODataFormatError(`The status monitor answered application/http that is not an HTTP response: ${(error as Error).message}`, response.status);
  }
}

/** The embedded response's value (JSON, decoded), or undefined when it has no body. @internal */
export function embeddedValue(embedded: EmbeddedResponse, monitor: SluiceResponse, host: AsyncResultHost): unknown {
  const json = parseJsonText(embedded.body, embedded.headers['content-type'] ?? null, host.parse, (problem, cause) => new ODataFormatError(
    problem.kind === 'content-type' ? `The operation's embedded response has content-type ${problem.type}, not JSON` : "The operation's embedded response is not valid JSON",
    monitor.status, cause === undefined ? undefined : { cause },
  ));
  return json === undefined ? undefined : host.decode(json);
}

/** The OData error an embedded failure carries (its status, code and message), as if it had been answered directly. @internal */
export function embeddedError(embedded: EmbeddedResponse, monitor: SluiceResponse): ODataError {
  const parsed = parseErrorBody(embedded.body);
  const excerpt = embedded.body.slice(0, 64 * 1024);
  const init = errorResponseInit(monitor, { text: redactText(excerpt), truncated: embedded.body.length > excerpt.length, cause: undefined });
  const plain = { ...init, status: embedded.status };
  const error = new ODataError({ ...plain, code: parsed?.code, message: parsed?.message, target: parsed?.target, details: parsed?.details, cause: new HttpError(plain) });
  // The embedded body may echo a credential the client knows.
  return monitor.secrets?.scrubError(error) ?? error;
}

/**
 * GETs the result of a finished operation through the same client (its plugins, retries and credentials
 * for the service's origin) at a URL the link policy let through, and hands back its decoded value.
 * An error status is the service's ODataError. @internal
 */
export async function fetchResult(http: Client, url: string, signal: AbortSignal | undefined, host: AsyncResultHost): Promise<{ value: unknown; status: number }> {
  const response = await http.request({
    method: 'GET', path: url, signal, throwHttpErrors: false, headers: { accept: 'application/json' }, context: spanContext({ type: 'async_result' }),
  });
  if (response.status >= 400) throw await toODataError(response);
  const json = await readJsonAnswer(response, { parse: host.parse, error: 'ODataFormatError' });
  return { value: json === undefined ? undefined : host.decode(json), status: response.status };
}
