/** One request inside a batch: method, URL relative to the service root (or `$1/…`), headers, JSON body. @internal */
export interface BatchPartRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON value; undefined for no body. */
  readonly body?: unknown;
  /** The Content-ID (multipart) or `id` (JSON batch) other requests of the changeset refer to as `$<id>`. */
  readonly contentId?: string | undefined;
}

/** What a batch sends, in order: single requests (reads) and changesets (atomic groups of writes). @internal */
export type BatchGroup =
  | { readonly kind: 'single'; readonly request: BatchPartRequest }
  | { readonly kind: 'changeset'; readonly requests: readonly BatchPartRequest[] };

/** One response inside a batch answer. */
export interface BatchPartResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body as text ('' when none). */
  readonly body: string;
  readonly contentId?: string | undefined;
}

/**
 * The answer to one group: a single request's response, or a changeset's responses (one per operation,
 * or a single error response when the whole changeset failed). @internal
 */
export type GroupResponse = readonly BatchPartResponse[];

/** `Content-Type` → `content-type`, and header names as OData's examples spell them (`Content-Type`). */
export function headerName(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/** Refuses header names and values that would break the framing (line breaks). */
export function checkHeader(name: string, value: string): void {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new TypeError(`Invalid header name in a batch part: ${JSON.stringify(name)}`);
  if (/[\r\n]/.test(value)) throw new TypeError(`Header ${name} of a batch part must not contain line breaks`);
}
