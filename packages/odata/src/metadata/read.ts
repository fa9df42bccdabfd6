import { redactURL, type SluiceResponse } from '@sluice/core';
import { ResponseSizeError } from '../errors.js';
import { parseCsdlJson } from './csdl-json.js';
import { edmxSkip, readEdmx } from './edmx.js';
import type { ServiceMetadata } from './model.js';
import { MetadataParseError } from './parse-error.js';
import { XmlTreeBuilder } from './xml.js';

/** The default of the `maxMetadataBytes` client option: 64 MiB. */
export const DEFAULT_MAX_METADATA_BYTES = 64 * 1024 * 1024;

/**
 * Reads a `$metadata` response as it arrives: EDMX XML is fed chunk by chunk to the XML parser (the
 * document is never held as one string), CSDL JSON (a body starting with `{`) is parsed whole. Every
 * failure is a {@link MetadataParseError} naming the URL (redacted) and, for XML, the position. A body
 * of more than `maxBytes` (declared by `Content-Length` or counted as it arrives) is a
 * {@link ResponseSizeError} with `limit` `'maxMetadataBytes'`.
 */
export async function readMetadataResponse(response: SluiceResponse, maxBytes = DEFAULT_MAX_METADATA_BYTES): Promise<ServiceMetadata> {
  const document = `$metadata at ${redactURL(response.url)}`;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let xml: XmlTreeBuilder | undefined;
  let json: string[] | undefined;
  let bytes = 0;
  const tooLarge = (): ResponseSizeError => new ResponseSizeError('maxMetadataBytes', maxBytes);
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.cancel();
    throw tooLarge();
  }
  try {
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) throw tooLarge();
      const text = decoder.decode(chunk, { stream: true });
      if (xml === undefined && json === undefined) {
        const start = text.trimStart();
        if (start === '') continue;
        if (start.startsWith('{')) json = [];
        else xml = new XmlTreeBuilder(document, edmxSkip);
      }
      if (json !== undefined) json.push(text);
      else xml!.write(text);
    }
    const tail = decoder.decode();
    if (json !== undefined) {
      json.push(tail);
      return parseCsdlJson(JSON.parse(json.join('')), document);
    }
    if (xml === undefined) throw new MetadataParseError(document, 'the body is empty');
    xml.write(tail);
    return readEdmx(xml.close(), document);
  } catch (error) {
    if (error instanceof MetadataParseError) throw error;
    // Invalid UTF-8 or JSON: typed, with the parser's reason; network errors keep their own type.
    if (error instanceof SyntaxError || error instanceof TypeError) {
      throw new MetadataParseError(document, error.message, undefined, { cause: error });
    }
    throw error;
  }
}
