import type { EntityTypeInfo } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import type { QueryState } from '../query/state.js';
import { encodeEntity, type EncodeContext } from './encode.js';
import { ReadOnlyQueryError } from './errors.js';
import { etagOf, ifMatchOf, withETag, type ETagSource } from './etag.js';
import type { WriteHost, WriteOptions } from './host.js';
import { bodyParser, sendWrite } from './send.js';
import { readJsonAnswer } from '../read/json-answer.js';
import type { SluiceResponse } from '@sluice/core';

/** Options of `create()`. */
export interface CreateOptions extends WriteOptions {
  /** v4 `Prefer: return=…`: the created entity back (`representation`) or only its Location (`minimal`). */
  prefer?: 'representation' | 'minimal' | undefined;
}

/** Options of `update()` and `replace()`. */
export interface UpdateOptions extends CreateOptions {
  /**
   * `If-Match`: an ETag string, `'*'` (whatever version is there), or an entity read earlier. Without it,
   * the `@odata.etag` of the changes object is used when it has one; otherwise none is sent.
   */
  etag?: ETagSource | undefined;
}

/** Options of `delete()`. */
export interface DeleteOptions extends WriteOptions {
  /** `If-Match`, as for {@link UpdateOptions.etag}. */
  etag?: ETagSource | undefined;
}

/**
 * What a write answers: the entity when the service returned it (decoded like a read, with its
 * `@odata.etag`), its new ETag, and for a create the `Location` of the new entity, given either way.
 */
export interface WriteResult<T> {
  /** The entity as the service returned it; undefined for `204 No Content` or `Prefer: return=minimal`. */
  value: T | undefined;
  /** The entity's ETag after the write (the `ETag` header, or the body's). */
  etag: string | undefined;
  /** The created entity's URL (`Location`, or v4 `OData-EntityId`), resolved against the request URL. */
  location: string | undefined;
  /** HTTP status of the answer. */
  status: number;
}

/** What a write is sent to: a query's URL (with the service's own options) and entity type. @internal */
export interface WriteTarget {
  readonly host: WriteHost;
  render(protocol: ODataProtocol): { url: string; entityType: EntityTypeInfo | undefined };
}

const COLLECTION_OPTIONS: Array<[keyof QueryState, string]> = [
  ['filters', '$filter'], ['select', '$select'], ['expand', '$expand'], ['orderBy', '$orderby'], ['top', '$top'], ['skip', '$skip'], ['count', '$count'], ['search', '$search'],
];

/** Throws ReadOnlyQueryError when a query carries read options a write cannot take. @internal */
export function checkWritable(state: QueryState, what: string, allowed: readonly string[] = []): void {
  for (const [field, option] of COLLECTION_OPTIONS) {
    if (allowed.includes(option)) continue;
    const value = state[field];
    const set = Array.isArray(value) ? value.length > 0 : value !== undefined && value !== false;
    if (set) throw new ReadOnlyQueryError(`${what} cannot be sent on a query with ${option}: writes address an entity set, a navigation or one entity by key`);
  }
}

function encodeContext(host: WriteHost, protocol: ODataProtocol): EncodeContext {
  return { protocol, metadata: host.loadedMetadata(), ieee754: host.writeSettings().largeNumbers === 'string' };
}

async function result<T>(response: SluiceResponse, host: WriteHost, protocol: ODataProtocol, entityType: EntityTypeInfo | undefined, url: string): Promise<WriteResult<T>> {
  const settings = host.writeSettings();
  const json = await readJsonAnswer(response, { parse: bodyParser(settings, protocol, entityType), error: 'ODataFormatError' });
  const header = response.headers.get('etag');
  const { largeNumbers, dates } = settings;
  const decode = { largeNumbers, dates, metadata: host.loadedMetadata(), entityType };
  const value = json === undefined ? undefined : withETag(protocol.decodeEntity(json, decode), header) as T;
  const location = response.headers.get('location') ?? response.headers.get('odata-entityid');
  return {
    value,
    etag: header ?? etagOf(value),
    location: location === null ? undefined : host.links.report('location', location, url),
    status: response.status,
  };
}

/** POST an entity (deep insert included) to a collection. @internal */
export async function createEntity<T>(target: WriteTarget, entity: unknown, options: CreateOptions): Promise<WriteResult<T>> {
  const protocol = await target.host.protocolReady(options.signal);
  const { url, entityType } = target.render(protocol);
  const body = encodeEntity(entity, entityType, encodeContext(target.host, protocol), 'entity');
  const prefer = options.prefer === undefined ? undefined : protocol.write.prefer(options.prefer);
  const response = await sendWrite(target.host, protocol, { method: 'POST', url, body, headers: prefer ? { prefer } : {}, options });
  return result<T>(response, target.host, protocol, entityType, url);
}

/** PATCH (v2 MERGE) or PUT one entity, with If-Match when given. @internal */
export async function updateEntity<T>(target: WriteTarget, changes: unknown, options: UpdateOptions, replace: boolean): Promise<WriteResult<T>> {
  const protocol = await target.host.protocolReady(options.signal);
  const { url, entityType } = target.render(protocol);
  const ifMatch = ifMatchOf(options.etag ?? (etagOf(changes) !== undefined ? changes as object : undefined));
  const body = encodeEntity(changes, entityType, encodeContext(target.host, protocol), replace ? 'entity' : 'changes');
  const headers: Record<string, string> = {};
  if (ifMatch !== undefined) headers['if-match'] = ifMatch;
  const prefer = options.prefer === undefined ? undefined : protocol.write.prefer(options.prefer);
  if (prefer !== undefined) headers['prefer'] = prefer;
  const response = await sendWrite(target.host, protocol, { method: replace ? 'PUT' : 'PATCH', url, body, headers, options });
  return result<T>(response, target.host, protocol, entityType, url);
}

/** DELETE one entity, with If-Match when given. @internal */
export async function deleteEntity(target: WriteTarget, options: DeleteOptions): Promise<void> {
  const protocol = await target.host.protocolReady(options.signal);
  const { url } = target.render(protocol);
  const ifMatch = ifMatchOf(options.etag);
  const response = await sendWrite(target.host, protocol, { method: 'DELETE', url, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch }, options });
  await response.cancel();
}
