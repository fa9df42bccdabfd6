// The typed error a request handler throws to answer with an OData error body.
import { SluiceError } from '@sluice/core';

/**
 * A request the OData test server refuses: carries the HTTP status, the OData error code and an
 * optional target (the query option or property at fault). The router turns it into a v4, v2 or
 * SAP XML error body.
 *
 * @example
 * ```ts
 * throw new ODataServerError(400, 'BadRequest', "Unknown property 'Nme'", '$select');
 * ```
 */
export class ODataServerError extends SluiceError {
  /** HTTP status to answer with. */
  readonly status: number;
  /** OData error code, e.g. `BadRequest`, `NotFound`. */
  readonly code: string;
  /** The part of the request at fault, such as `$filter`. */
  readonly target: string | undefined;
  /** Extra response headers, such as the current `ETag` of a 412. */
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, code: string, message: string, target?: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.target = target;
    this.headers = headers;
  }
}

/** Shorthand for a 400 Bad Request with an OData error body. */
export function badRequest(message: string, target?: string): ODataServerError {
  return new ODataServerError(400, 'BadRequest', message, target);
}
