import type { ReadOptions } from '../query/state.js';
import { ifMatchOf, withETag, type ETagSource } from './etag.js';
import type { WriteTarget } from './entity-writes.js';
import { bodyParser, sendWrite } from './send.js';
import { readJsonAnswer } from '../read/json-answer.js';

/** What a conditional read answers: the entity when it changed, or only "not modified". */
export type ConditionalRead<T> =
  | { readonly modified: true; readonly value: T; readonly etag: string | undefined }
  | { readonly modified: false; readonly etag: string };

/**
 * GET with `If-None-Match` (RFC 9110 section 13.1.2): a `304 Not Modified` answers `{ modified: false }`
 * without a body; otherwise the entity as `get()` reads it. @internal
 */
export async function readIfChanged<T>(target: WriteTarget, etag: ETagSource, options: ReadOptions): Promise<ConditionalRead<T>> {
  const tag = ifMatchOf(etag, 'readIfChanged etag')!;
  const protocol = await target.host.protocolReady(options.signal);
  const { url, entityType } = target.render(protocol);
  const response = await sendWrite(target.host, protocol, { method: 'GET', url, headers: { 'if-none-match': tag }, options });
  if (response.status === 304) {
    await response.cancel();
    return { modified: false, etag: response.headers.get('etag') ?? tag };
  }
  const header = response.headers.get('etag');
  const settings = target.host.writeSettings();
  const decode = { largeNumbers: settings.largeNumbers, dates: settings.dates, metadata: target.host.loadedMetadata(), entityType };
  const value = withETag(protocol.decodeEntity(await readJsonAnswer(response, { parse: bodyParser(settings, protocol, entityType), error: 'ODataFormatError' }), decode), header) as T;
  return { modified: true, value, etag: header ?? (value as { '@odata.etag'?: string })['@odata.etag'] };
}
