// The writable part of the test service (opt-in with `startODataServer({ writes })`): Orders with
// create, update (PATCH, v2 MERGE, X-HTTP-Method tunnelling), replace and delete under ETags, deep
// insert, actions, functions, async jobs, an ABAP-like CSRF check, and a "session gone" login page.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CsrfGateway, type CsrfGatewayOptions } from '../../csrf-gateway.js';
import { badRequest, ODataServerError } from '../errors.js';
import { parseQuery } from '../query-options.js';
import { send } from '../respond.js';
import { checkIfMatch, jsonBody, notModified, prefers, reply, versionHeader, type Exchange } from './exchange.js';
import { deltaRead } from './delta.js';
import { Jobs } from './jobs.js';
import { collectionBody, linesJson, orderEntityBody, orderJson } from './order-json.js';
import { OrderStore, type OrderRecord, type Stored } from './orders.js';
import { LINE_SET, orderSet, queryRows, type WritableSet } from './write-query.js';
import { actionParams, approve, closeAll, echo, monitor, startJob, totalAmount, v2Params, v4FunctionParams } from './operations.js';
import { withWritesJson, withWritesXml } from './write-metadata.js';
import { lineSelection, orderSelection } from './write-select.js';

/** Options of the writable service. */
export interface ODataWriteOptions {
  /** Check CSRF tokens like an ABAP gateway (default false); an object configures the check. */
  csrf?: boolean | CsrfGatewayOptions;
  /** Answer 428 to updates and deletes of Orders without If-Match (default true). */
  requireIfMatch?: boolean;
}

/** Controls and state of the writable service, for tests. */
export interface ODataWriteControl {
  readonly store: OrderStore;
  readonly jobs: Jobs;
  /** The CSRF check, when on: counts fetches and rejections, expires tokens and sessions. */
  readonly csrf: CsrfGateway | undefined;
  /** When true, every request is answered 200 with an HTML logon page, as SAP does when a session is gone. */
  loginPage: boolean;
  /**
   * When true, a v4 delta read names removed orders by their key property (`{"@removed":{"reason":"deleted"},"ID":7}`)
   * instead of `@id`, as JSON Format 4.01 section 15 allows (whatever `OData-MaxVersion` asked for).
   */
  removalsByKey: boolean;
  /**
   * When set, a change-tracking full read of Orders comes in pages of this many orders, in key order (next
   * links carry `$skiptoken=track-<change>-<last key>`); the delta link of its last page starts from the
   * change the read began at, so changes made during the read come in the next delta read. Default: one page.
   */
  fullReadPageSize: number | undefined;
}

const LOGIN_PAGE = '<!DOCTYPE html><html><head><title>Logon</title></head><body><form method="post"><input name="sap-user"></form></body></html>';
const KEY = /^(Orders|OrderLines)\((?:ID=)?(-?\d+)\)$/;

/** The writable service of one server. */
export class WriteService implements ODataWriteControl {
  readonly store = new OrderStore();
  readonly jobs = new Jobs();
  readonly csrf: CsrfGateway | undefined;
  loginPage = false;
  removalsByKey = false;
  fullReadPageSize: number | undefined = undefined;
  private readonly requireIfMatch: boolean;

  constructor(options: ODataWriteOptions) {
    this.csrf = options.csrf ? new CsrfGateway(options.csrf === true ? {} : options.csrf) : undefined;
    this.requireIfMatch = options.requireIfMatch ?? true;
  }

  /** Answers before routing (login page, CSRF fetch on HEAD, CSRF refusal); true when it answered. */
  intercept(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.loginPage) {
      res.writeHead(200, { 'content-type': 'text/html;charset=utf-8', 'content-length': String(LOGIN_PAGE.length) }).end(LOGIN_PAGE);
      return true;
    }
    return this.csrf?.handle(req, res) ?? false;
  }

  /** The $metadata document with the writable part added. */
  metadata(doc: string, version: 2 | 4, json: boolean): string {
    return json ? withWritesJson(doc) : withWritesXml(doc, version);
  }

  /** Handles the request when it addresses the writable part; false when it does not. */
  async route(x: Exchange): Promise<boolean> {
    const { rest } = x;
    if (rest.startsWith('$jobs/')) {
      await monitor(x, this.jobs, rest);
      return true;
    }
    const fn = /^(Echo|StartJob|ApproveOrder)(?:\((.*)\))?$/s.exec(rest);
    if (fn) {
      await this.unbound(x, fn[1]!, fn[2]);
      return true;
    }
    const segments = rest.split('/');
    const head = segments[0]!;
    if (head !== 'Orders' && head !== 'OrderLines' && !KEY.test(head)) return false;
    await this.entities(x, segments);
    return true;
  }

  private async unbound(x: Exchange, name: string, inner: string | undefined): Promise<void> {
    if (x.version === 2) {
      // v2 function imports: parameters as query options, method as $metadata declares it.
      const method = name === 'Echo' ? 'GET' : 'POST';
      if (x.method !== method) throw new ODataServerError(405, 'MethodNotAllowed', `Function import ${name} is called with ${method}`);
      const params = v2Params(x);
      if (name === 'Echo') return echo(x, params);
      if (name === 'StartJob') return startJob(x, this.jobs, params);
      return approve(x, this.store, this.store.get(Number(params['ID'])), params['Comment']);
    }
    if (name === 'Echo') {
      if (x.method !== 'GET' || inner === undefined) throw badRequest('Echo is a function: GET Echo(Text=...,Count=...)');
      return echo(x, v4FunctionParams(inner, x));
    }
    if (name === 'StartJob' && x.method === 'POST' && inner === undefined) return startJob(x, this.jobs, actionParams(x));
    throw new ODataServerError(404, 'NotFound', `No operation ${name} for ${x.method}`);
  }

  private async entities(x: Exchange, segments: string[]): Promise<void> {
    const key = KEY.exec(segments[0]!);
    const set = key ? key[1]! : segments[0]!;
    const op = segments[1];
    if (!key) {
      if (op === 'Demo.CloseAll' && x.method === 'POST' && x.version === 4) return closeAll(x, this.store);
      if (op === 'Demo.TotalAmount()' && x.method === 'GET' && x.version === 4) return totalAmount(x, this.store);
      if (op === '$count' && segments.length === 2) {
        return set === 'OrderLines' ? this.count(x, LINE_SET, this.store.lines.values()) : this.count(x, orderSet(this.store), this.store.orders.values());
      }
      if (op !== undefined) throw new ODataServerError(404, 'NotFound', `No segment '${op}' after ${set}`);
      if (set === 'OrderLines') return this.lines(x, this.store.lines.values());
      if (x.method === 'GET') {
        if (await deltaRead(x, this.store, this.removalsByKey, this.fullReadPageSize)) return;
        const expand = /\$expand=Lines/.test(x.search);
        const { rows, count, options } = queryRows(x, orderSet(this.store), this.store.orders.values());
        const sel = orderSelection(options.select, x.version, expand);
        const items = rows.map((o) => orderJson(this.store, o, x.dialect, x.root, expand, sel));
        return reply(x, 200, {}, collectionBody(items, x.dialect, x.root, 'Orders', count, sel));
      }
      if (x.method === 'POST') return this.create(x);
      throw new ODataServerError(405, 'MethodNotAllowed', `${x.method} is not allowed on a collection`);
    }
    const id = Number(key[2]);
    if (set === 'OrderLines') {
      const line = this.store.lines.get(id);
      if (!line || op !== undefined) throw new ODataServerError(404, 'NotFound', `No OrderLine with key (${id})`);
      return this.readOnly(x, () => {
        const json = linesJson(this.store, [id], x.dialect, x.root, lineSelection(parseQuery(x.search, x.version).select, x.version).fields)[0]!;
        return x.version === 4 ? json : `{"d":${json}}`;
      });
    }
    const order = this.store.get(id);
    if (op === 'Lines') {
      const lines = order.lines.map((line) => this.store.lines.get(line)!);
      if (segments[2] === '$count' && segments.length === 3) return this.count(x, LINE_SET, lines);
      if (segments.length === 2) return this.lines(x, lines);
    }
    if (op === 'Demo.Approve' && x.method === 'POST' && x.version === 4) return approve(x, this.store, order, actionParams(x)['Comment']);
    if (op !== undefined) throw new ODataServerError(404, 'NotFound', `No segment '${op}' after Orders(${id})`);
    return this.entity(x, order);
  }

  /** A collection of lines after the request's query options. */
  private async lines(x: Exchange, lines: Iterable<Stored>): Promise<void> {
    return this.readOnly(x, () => {
      const { rows, count, options } = queryRows(x, LINE_SET, lines);
      const sel = lineSelection(options.select, x.version);
      return collectionBody(linesJson(this.store, rows.map((l) => l['ID'] as number), x.dialect, x.root, sel.fields), x.dialect, x.root, 'OrderLines', count, sel);
    });
  }

  /** `/$count`: the rows matching $filter, as plain text (OData 4.01 Protocol section 11.2.10). */
  private async count<T>(x: Exchange, set: WritableSet<T>, rows: Iterable<T>): Promise<void> {
    if (x.method !== 'GET') throw new ODataServerError(405, 'MethodNotAllowed', `${x.method} is not allowed on $count`);
    const { total } = queryRows(x, set, rows);
    await send(x.res, 200, { 'content-type': 'text/plain;charset=utf-8', ...versionHeader(x) }, String(total));
  }

  private async readOnly(x: Exchange, body: () => string): Promise<void> {
    if (x.method !== 'GET') throw new ODataServerError(405, 'MethodNotAllowed', `${x.method} is not allowed here`);
    return reply(x, 200, {}, body());
  }

  private async create(x: Exchange): Promise<void> {
    const order = this.store.create(jsonBody(x), x.dialect);
    const location = `${x.root}Orders(${order.values['ID']})`;
    const headers: Record<string, string> = { location, etag: this.store.etag(order) };
    // OData 4.01 Protocol 11.4.2: with return=minimal, 204 and OData-EntityId.
    if (x.version === 4 && prefers(x, 'return=minimal')) {
      return reply(x, 204, { ...headers, 'odata-entityid': location, 'preference-applied': 'return=minimal' });
    }
    return reply(x, 201, headers, orderEntityBody(this.store, order, x.dialect, x.root, order.lines.length > 0));
  }

  private async entity(x: Exchange, order: OrderRecord): Promise<void> {
    const etag = this.store.etag(order);
    switch (x.method) {
      case 'GET': {
        if (notModified(x, etag)) return reply(x, 304, { etag });
        const expand = /\$expand=Lines/.test(x.search);
        const sel = orderSelection(parseQuery(x.search, x.version).select, x.version, expand);
        return reply(x, 200, { etag }, orderEntityBody(this.store, order, x.dialect, x.root, expand, sel));
      }
      case 'PATCH':
      case 'MERGE':
      case 'PUT': {
        if (x.method === 'MERGE' && x.version === 4) throw new ODataServerError(405, 'MethodNotAllowed', 'MERGE is OData v2; use PATCH');
        checkIfMatch(x, etag, this.requireIfMatch);
        this.store.update(order, jsonBody(x), x.dialect, x.method === 'PUT');
        const next = this.store.etag(order);
        if (x.version === 4 && prefers(x, 'return=representation')) {
          return reply(x, 200, { etag: next, 'preference-applied': 'return=representation' }, orderEntityBody(this.store, order, x.dialect, x.root, false));
        }
        return reply(x, 204, { etag: next });
      }
      case 'DELETE':
        checkIfMatch(x, etag, this.requireIfMatch);
        this.store.delete(order.values['ID'] as number);
        return reply(x, 204, {});
      default:
        throw new ODataServerError(405, 'MethodNotAllowed', `${x.method} is not allowed on an entity`);
    }
  }
}
