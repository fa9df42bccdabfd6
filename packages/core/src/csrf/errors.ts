import { SluiceError } from '../errors.js';

/**
 * The CSRF token could not be obtained (the fetch failed or the answer carried no token), or the
 * server refused a fresh token again after the one retry. Never carries the token or a cookie.
 */
export class CsrfTokenError extends SluiceError {
  /** Origin of the service. */
  readonly origin: string;
  /** HTTP status of the answer that ended the attempt, when there was one. */
  readonly status: number | undefined;
  constructor(origin: string, reason: string, status?: number, options?: { cause?: unknown }) {
    super(`CSRF token for ${origin}: ${reason}`, options);
    this.origin = origin;
    this.status = status;
  }
}
