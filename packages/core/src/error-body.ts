import { HttpError } from './errors.js';
import { CREDENTIAL_HEADERS, REDACTED, redactText } from './redact.js';
import type { SluiceResponse } from './response.js';

/** What {@link readErrorBody} read. */
export interface ErrorBody {
  /** The body as text, at most `limit` bytes, redacted. */
  text: string;
  /** Whether the body went on past `limit` (the rest was dropped). */
  truncated: boolean;
  /** Why reading stopped early (a reset, a timeout), when it did. */
  cause: unknown;
}

/**
 * Reads the body of an error response for {@link HttpError}: at most `limit` bytes (default
 * {@link HttpError.BODY_LIMIT}, 64 KiB), the rest dropped so the connection is released, decoded as UTF-8
 * and redacted (`redactText`). A read that fails keeps what arrived and reports the failure as `cause`.
 * A body already read gives an empty text.
 *
 * @example
 * ```ts
 * const res = await client.get('orders', { throwHttpErrors: false })
 * if (res.status >= 400) {
 *   const { text, truncated } = await readErrorBody(res)
 *   throw new HttpError({ ...requestOf(res), bodyExcerpt: text, bodyTruncated: truncated })
 * }
 * ```
 */
export async function readErrorBody(response: SluiceResponse, limit: number = HttpError.BODY_LIMIT): Promise<ErrorBody> {
  if (response.bodyUsed) return { text: '', truncated: false, cause: undefined };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  let cause: unknown;
  try {
    for await (const chunk of response.body) {
      const room = limit - size;
      if (chunk.byteLength > room) {
        chunks.push(chunk.subarray(0, room));
        size = limit;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.byteLength;
    }
  } catch (error) {
    cause = error;
  }
  // A cut may split a UTF-8 sequence: the decoder drops the partial character instead of failing.
  const text = new TextDecoder().decode(Buffer.concat(chunks, size));
  const redacted = redactText(truncated ? text.replace(/\uFFFD$/, '') : text);
  // The client's own secrets too: a server may echo a token bare ("the credential <t> is not valid").
  return { text: response.secrets?.scrub(redacted) ?? redacted, truncated, cause };
}

/**
 * The fields of an {@link HttpError} (or a subclass such as an OData error) for an error response whose body
 * {@link readErrorBody} read: status, request, headers without cookies, and the redacted body.
 */
export function errorResponseInit(response: SluiceResponse, body: ErrorBody) {
  return {
    status: response.status,
    method: response.method,
    // The URL too: a path may carry a secret the client knows (the patterns only see query and user-info).
    url: response.secrets?.scrub(response.url) ?? response.url,
    headers: errorHeaders(response),
    bodyExcerpt: body.text,
    bodyTruncated: body.truncated,
    cause: body.cause,
  };
}

/** The headers an error keeps: no `set-cookie`, credential headers redacted, the client's secrets scrubbed (a `WWW-Authenticate` echoing the token). */
function errorHeaders(response: SluiceResponse): Record<string, string> {
  const headers = response.headers.toObject(['set-cookie']);
  for (const [name, value] of Object.entries(headers)) {
    headers[name] = CREDENTIAL_HEADERS.includes(name) ? REDACTED : response.secrets?.scrub(value) ?? value;
  }
  return headers;
}

/** The {@link HttpError} for an error response, its body read with {@link readErrorBody}. */
export async function toHttpError(response: SluiceResponse): Promise<HttpError> {
  return new HttpError(errorResponseInit(response, await readErrorBody(response)));
}
