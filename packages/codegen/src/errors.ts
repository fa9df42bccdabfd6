import type { SourcePlace } from './model.js';

/**
 * The metadata cannot be turned into types: not well-formed, not EDMX or CSDL JSON, an unknown EDM type, a
 * type reference nothing declares, a name declared twice. Names the document, the element and its line.
 * Nothing is written when it is thrown.
 *
 * @example
 * ```ts
 * import { generate, CodegenError } from '@sluice/codegen'
 * try { generate('<edmx:Edmx', { source: 'service.edmx' }) } catch (err) {
 *   if (err instanceof CodegenError) console.error(err.message, err.line)
 * }
 * ```
 */
export class CodegenError extends Error {
  override readonly name = 'CodegenError';
  /** The document (file name or redacted URL). */
  readonly document: string;
  /** The element at fault, as written (`<Property Name="Price">`), when known. */
  readonly element: string | undefined;
  /** 1-based line of the element, when known. */
  readonly line: number | undefined;

  constructor(document: string, reason: string, place?: SourcePlace, options?: { cause?: unknown }) {
    const where = place === undefined ? '' : ` ${place.element}${place.line === undefined ? '' : ` at line ${place.line}`}`;
    super(`${document}${where === '' ? '' : `:${where}`}: ${reason}`, options);
    this.document = document;
    this.element = place?.element;
    this.line = place?.line;
  }
}
