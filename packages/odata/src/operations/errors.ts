import { ConfigError, SluiceError } from '@sluice/core';

/** How an async operation ended, or where it stood when waiting ended: the status URL (redacted) and the polls made. */
export abstract class AsyncOperationError extends SluiceError {
  /** The status URL, redacted. */
  readonly statusURL: string;
  /** Polls made. */
  readonly polls: number;
  constructor(statusURL: string, polls: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.statusURL = statusURL;
    this.polls = polls;
  }
}

/** The async operation reported Failed (SPEC 3.2, 7: `ErrAsyncOpFailed`); `cause` is the service's error when it sent one. */
export class AsyncOperationFailedError extends AsyncOperationError {
  /** The last status body, when it was JSON. */
  readonly body: unknown;
  constructor(statusURL: string, polls: number, detail: string, body: unknown, options?: { cause?: unknown }) {
    super(statusURL, polls, `The asynchronous operation at ${statusURL} failed after ${polls} poll(s)${detail ? `: ${detail}` : ''}`, options);
    this.body = body;
  }
}

/** The operation was still running after `maxPolls` polls (SPEC 3.2, 7: `ErrAsyncOpTimeout`); it may still finish. */
export class AsyncOperationTimeoutError extends AsyncOperationError {
  constructor(statusURL: string, polls: number) {
    super(statusURL, polls, `The asynchronous operation at ${statusURL} was still running after ${polls} poll(s) (maxPolls)`);
  }
}

/** The operation reported Cancelled (by the service, or after `poller.cancel()`). */
export class AsyncOperationCancelledError extends AsyncOperationError {
  constructor(statusURL: string, polls: number) {
    super(statusURL, polls, `The asynchronous operation at ${statusURL} was cancelled`);
  }
}

/** An action or function the loaded `$metadata` does not declare (or declares as the other kind). Nothing was sent. */
export class UnknownOperationError extends ConfigError {}
