import { ConfigError } from '@sluice/core';
import { checkCallOptions } from '../call-options.js';
import type { EntityTypeInfo } from '../metadata/model.js';
import type { DecodeContext, ODataProtocol } from '../protocol/types.js';
import { encodeOptionValue } from '../query/state.js';
import { checkIdentifier } from '../query/names.js';
import { ifMatchOf, type ETagSource } from '../write/etag.js';
import type { WriteHost, WriteOptions } from '../write/host.js';
import { bodyParser, sendWrite } from '../write/send.js';
import { readJsonAnswer, type BodyParser } from '../read/json-answer.js';
import { entitySetOf } from '../telemetry.js';
import { complexAsEntity } from '../v2/values.js';
import { operationParam, resolveOperation, type BindingInfo } from './resolve.js';

/** Where a bound operation is called: a query's URL and entity type. @internal */
export interface OperationBinding {
  render(protocol: ODataProtocol): { url: string; entityType: EntityTypeInfo | undefined };
  readonly collection: boolean;
}

/** Options of `action(...).execute()`. */
export interface ActionOptions extends WriteOptions {
  /** Ask the service to run it asynchronously (`Prefer: respond-async`): a 202 with a status URL. */
  async?: boolean | undefined;
  /** `If-Match` for an action bound to an entity: an ETag string, `'*'` or an entity read earlier. */
  etag?: ETagSource | undefined;
}

/** Options of `function(...).execute()`. */
export interface FunctionOptions extends WriteOptions {
  /** v4: pass parameters as aliases in the query (`F(P=@P)?@P='x'`) instead of inline. */
  aliases?: boolean | undefined;
}

/** What an action answers (SPEC 2.5 "Action result"). */
export interface ActionResult<T> {
  /** True when the service answered `202 Accepted`: the operation runs on, watch it at `location`. */
  readonly isAsync: boolean;
  /** The status URL on a 202 (resolved against the request URL), else the `Location` the service sent, if any. */
  readonly location: string | undefined;
  /** The returned value (an entity, a collection, or a primitive), decoded; undefined on 202 or 204. */
  readonly value: T | undefined;
  readonly status: number;
}

type Params = readonly (readonly [string, unknown])[];

/**
 * A POST without a body (a v2 function import: its parameters are query options) still says
 * `content-type: application/json`: SAP CAP's v2 adapter drops the parameters of a POST without one.
 */
function postHeaders(method: 'GET' | 'POST', body: unknown): Record<string, string> {
  return method === 'POST' && body === undefined ? { 'content-type': 'application/json' } : {};
}

function build(host: WriteHost, protocol: ODataProtocol, binding: OperationBinding | undefined, path: string, query: readonly (readonly [string, string])[]): string {
  let base: string;
  let own: string;
  if (binding !== undefined) {
    const { url } = binding.render(protocol);
    const q = url.indexOf('?');
    base = `${q < 0 ? url : url.slice(0, q)}/`;
    own = q < 0 ? '' : url.slice(q + 1);
  } else {
    base = host.serviceURL;
    own = host.serviceParams.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
  }
  const extra = query.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
  const all = [own, extra].filter((s) => s !== '').join('&');
  return base + path + (all ? `?${all}` : '');
}

/** What {@link ActionCall} and {@link FunctionCall} share: a named operation collecting its parameters. */
export abstract class OperationCall<Self> {
  /** @internal */
  constructor(protected readonly host: WriteHost, protected readonly name: string, protected readonly binding: OperationBinding | undefined, protected readonly params: Params) {
    if (typeof name !== 'string' || !/^[A-Za-z_][\w.]*$/.test(name)) throw new ConfigError('operation', `must be a (namespace-qualified) name, got ${JSON.stringify(name)}`);
  }

  protected abstract copy(params: Params): Self;

  /** Adds a parameter (a primitive, a Date, a typed value such as `int64('…')`, or an object for a complex parameter). */
  parameter(name: string, value: unknown): Self {
    checkIdentifier(name, 'parameter');
    if (this.params.some(([n]) => n === name)) throw new ConfigError(`parameter ${name}`, 'is given twice');
    return this.copy([...this.params, [name, value]]);
  }

  protected async prepare(kind: 'action' | 'function', signal: AbortSignal | undefined) {
    const protocol = await this.host.protocolReady(signal);
    const md = this.host.loadedMetadata();
    let bindingInfo: BindingInfo | undefined;
    if (this.binding !== undefined) bindingInfo = { entityType: this.binding.render(protocol).entityType, collection: this.binding.collection };
    const resolved = resolveOperation(md, protocol, kind, this.name, bindingInfo);
    const ctx = { protocol, metadata: md, ieee754: this.host.writeSettings().largeNumbers === 'string' };
    const params = this.params.map(([n, v]) => operationParam(n, v, resolved, ctx));
    return { protocol, resolved, params };
  }
}

/**
 * An action call (SPEC 4.5 "Action"): `od.action('StartJob').parameter('Polls', 3).execute()`, or bound,
 * `od.from('Orders').key(7).action('Demo.Approve')`. POSTs its parameters as a JSON body (v4) or calls the
 * v2 function import with literal query options and the method `$metadata` declares.
 */
export class ActionCall<T = unknown> extends OperationCall<ActionCall<T>> {
  protected copy(params: Params): ActionCall<T> {
    return new ActionCall<T>(this.host, this.name, this.binding, params);
  }

  /** Sends the action; a 202 answer is `isAsync` with the status URL in `location`. */
  async execute(options: ActionOptions = {}): Promise<ActionResult<T>> {
    checkCallOptions('execute()', `action ${this.name}`, options, 'action');
    const { protocol, resolved, params } = await this.prepare('action', options.signal);
    const call = protocol.write.actionCall(resolved.name, params);
    const url = build(this.host, protocol, this.binding, call.path, call.query);
    const headers: Record<string, string> = postHeaders(resolved.method, call.body);
    if (options.async) headers['prefer'] = 'respond-async';
    const ifMatch = ifMatchOf(options.etag);
    if (ifMatch !== undefined) headers['if-match'] = ifMatch;
    const span = { type: 'action' as const, name: this.name, entitySet: this.binding === undefined ? undefined : entitySetOf(this.host.serviceURL, url) };
    const response = await sendWrite(this.host, protocol, { method: resolved.method, url, body: call.body, headers, options, span });
    const location = response.headers.get('location');
    const resolvedLocation = location === null ? undefined : this.host.links.report(response.status === 202 ? 'statusURL' : 'location', location, url);
    if (response.status === 202) {
      await response.cancel();
      return { isAsync: true, location: resolvedLocation, value: undefined, status: 202 };
    }
    const json = await readJsonAnswer(response, { parse: resultParser(this.host, protocol, resolved.returnType), error: 'ODataFormatError' });
    return { isAsync: false, location: resolvedLocation, value: json === undefined ? undefined : protocol.write.operationResult(json, resolved.name, resolved.returnType, resultDecode(this.host, resolved.returnType)) as T, status: response.status };
  }
}

/**
 * A function call: `od.function('Echo', { Text: "O'Neil" }).execute()`, or bound,
 * `od.from('Orders').function('Demo.TotalAmount')`. GETs with the parameters in the URL as escaped
 * literals: v4 inline (or as aliases), v2 as query options of the function import.
 */
export class FunctionCall<T = unknown> extends OperationCall<FunctionCall<T>> {
  protected copy(params: Params): FunctionCall<T> {
    return new FunctionCall<T>(this.host, this.name, this.binding, params);
  }

  /** Calls the function and resolves with its decoded value. */
  async execute(options: FunctionOptions = {}): Promise<T> {
    checkCallOptions('execute()', `function ${this.name}`, options, 'function');
    const { protocol, resolved, params } = await this.prepare('function', options.signal);
    const call = protocol.write.functionCall(resolved.name, params, options.aliases ?? false);
    const url = build(this.host, protocol, this.binding, call.path, call.query);
    const span = { type: 'function' as const, name: this.name, entitySet: this.binding === undefined ? undefined : entitySetOf(this.host.serviceURL, url) };
    const response = await sendWrite(this.host, protocol, { method: resolved.method, url, headers: postHeaders(resolved.method, call.body), options, span });
    const json = await readJsonAnswer(response, { parse: resultParser(this.host, protocol, resolved.returnType), error: 'ODataFormatError' });
    return protocol.write.operationResult(json, resolved.name, resolved.returnType, resultDecode(this.host, resolved.returnType)) as T;
  }
}

const VALUE: ReadonlySet<string> = new Set(['value']);

/**
 * How an operation's answer is parsed, by the return type `$metadata` declares: an entity or a collection
 * of entities with their Int64/Decimal properties exact, an Int64/Decimal result's `value` exact, as reads
 * are (v4 services that ignore IEEE754Compatible).
 */
function resultParser(host: WriteHost, protocol: ODataProtocol, returnType: string | undefined): BodyParser | undefined {
  const collection = /^Collection\((.+)\)$/.exec(returnType ?? '')?.[1];
  const name = collection ?? returnType;
  const settings = host.writeSettings();
  if (name === 'Edm.Int64' || name === 'Edm.Decimal') return bodyParser(settings, protocol, undefined, 'entity', VALUE);
  const type = name === undefined ? undefined : host.loadedMetadata()?.entityTypes.get(name);
  return bodyParser(settings, protocol, type, collection === undefined ? 'entity' : 'collection');
}

/**
 * How an entity or complex result (or a collection of them) is decoded, as reads decode such values; undefined
 * when the return type is no entity or complex type of the model.
 */
function resultDecode(host: WriteHost, returnType: string | undefined): DecodeContext | undefined {
  const name = /^Collection\((.+)\)$/.exec(returnType ?? '')?.[1] ?? returnType;
  const metadata = host.loadedMetadata();
  const complex = name === undefined ? undefined : metadata?.complexTypes.get(name);
  const entityType = name === undefined ? undefined : metadata?.entityTypes.get(name) ?? (complex === undefined ? undefined : complexAsEntity(complex));
  if (entityType === undefined) return undefined;
  const { largeNumbers, dates } = host.writeSettings();
  return { largeNumbers, dates, metadata, entityType };
}

/** Turns `{ Name: value }` into parameter pairs. @internal */
export function paramsOf(params: Readonly<Record<string, unknown>> | undefined): Params {
  if (params === undefined) return [];
  if (typeof params !== 'object' || params === null) throw new ConfigError('params', 'must be an object of parameter names to values');
  for (const name of Object.keys(params)) checkIdentifier(name, 'parameter');
  return Object.entries(params);
}
