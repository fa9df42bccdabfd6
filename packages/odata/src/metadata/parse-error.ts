import { SluiceError } from '@sluice/core';

/**
 * A `$metadata` document (or another XML body sluice reads) could not be parsed: not well-formed XML,
 * an invalid character reference, not an EDMX document, or CSDL JSON without `$Version`. Names the
 * document (its URL, redacted, or a label) and, for XML, the line and column where reading stopped.
 *
 * @example
 * ```ts
 * try { parseEdmx('<edmx:Edmx', { document: 'local file' }) } catch (err) {
 *   if (err instanceof MetadataParseError) console.error(err.document, err.line, err.column)
 * }
 * ```
 */
export class MetadataParseError extends SluiceError {
  /** The document's URL (redacted) or label. */
  readonly document: string;
  /** 1-based line where parsing stopped, when known. */
  readonly line: number | undefined;
  /** 1-based column where parsing stopped, when known. */
  readonly column: number | undefined;
  /** What was wrong, without the document and position. */
  readonly reason: string;

  constructor(document: string, reason: string, position?: { line: number; column: number }, options?: { cause?: unknown }) {
    const at = position ? ` at line ${position.line}, column ${position.column}` : '';
    super(`Cannot read ${document}${at}: ${reason}`, options);
    this.document = document;
    this.line = position?.line;
    this.column = position?.column;
    this.reason = reason;
  }
}
