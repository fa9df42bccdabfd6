import { SluiceError } from '@sluice/core';

/**
 * A batch answer that cannot be matched to the request: a boundary other than the one declared, a part
 * cut short, or a number of parts different from the requests sent. Nothing of such an answer is used,
 * so nothing is dropped silently; `status` is the HTTP status of the batch response.
 */
export class BatchFormatError extends SluiceError {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}
