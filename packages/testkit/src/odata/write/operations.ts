// Actions and functions of the writable service: v4 bound (Approve, CloseAll, TotalAmount) and unbound
// (Echo, StartJob) operations, v2 function imports (Echo GET, ApproveOrder POST, StartJob POST) with
// parameters as query options, and the async job monitor.
import { badRequest, ODataServerError } from '../errors.js';
import { parseLiteral } from '../filter-parser.js';
import type { Value } from '../model.js';
import { decodeComponent } from '../query-options.js';
import { checkIfMatch, jsonBody, prefers, reply, versionHeader, type Exchange } from './exchange.js';
import type { JobParams, Jobs } from './jobs.js';
import { orderEntityBody } from './order-json.js';
import { ORDER_FIELDS, writeValue, type OrderRecord, type OrderStore } from './orders.js';

/** Splits `a='x,y',b=2` at the commas outside string literals. */
const splitParams = (text: string): string[] => (text.trim() === '' ? [] : text.split(/,(?=(?:[^']*'[^']*')*[^']*$)/));

/** Query options of the request that are not system options (`$...`), decoded. */
function customOptions(search: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of search.split('&')) {
    if (pair === '' || pair.startsWith('$')) continue;
    const eq = pair.indexOf('=');
    out.set(decodeComponent(eq < 0 ? pair : pair.slice(0, eq), 'query option'), decodeComponent(eq < 0 ? '' : pair.slice(eq + 1), 'query option'));
  }
  return out;
}

function literal(text: string, x: Exchange, name: string): Value {
  try {
    return parseLiteral(text.trim(), x.version).value;
  } catch {
    throw badRequest(`Parameter '${name}' has an invalid literal: ${text}`, name);
  }
}

/** v4 function parameters `(A='x',B=@b)` with aliases from the query (URL Conventions 4.01 section 5.1.1.13). */
export function v4FunctionParams(inner: string, x: Exchange): Record<string, Value> {
  const aliases = customOptions(x.search);
  const out: Record<string, Value> = {};
  for (const part of splitParams(inner)) {
    const m = /^\s*([A-Za-z_]\w*)\s*=(.*)$/s.exec(part);
    if (!m) throw badRequest(`Invalid function parameter '${part}'`);
    let text = m[2]!.trim();
    if (text.startsWith('@')) {
      const aliased = aliases.get(text);
      if (aliased === undefined) throw badRequest(`Parameter alias ${text} has no value`, text);
      text = aliased;
    }
    out[m[1]!] = literal(text, x, m[1]!);
  }
  return out;
}

/** v2 function import parameters: query options holding literals (`?ID=1&Comment='x'`). */
export function v2Params(x: Exchange): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [name, text] of customOptions(x.search)) if (!name.startsWith('sap-')) out[name] = literal(text, x, name);
  return out;
}

const asString = (v: Value | unknown, name: string): string => {
  if (typeof v !== 'string') throw badRequest(`Parameter '${name}' must be a string`, name);
  return v;
};
const asInt = (v: Value | unknown, name: string): number => {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw badRequest(`Parameter '${name}' must be an integer`, name);
  return n;
};

/** `Echo(Text, Count)`: `Text|Count`, so tests can see both parameters arrive exactly. */
export async function echo(x: Exchange, params: Record<string, unknown>): Promise<void> {
  const value = `${asString(params['Text'], 'Text')}|${asInt(params['Count'], 'Count')}`;
  const body = x.version === 4
    ? JSON.stringify({ '@odata.context': `${x.root}$metadata#Edm.String`, value })
    : JSON.stringify({ d: { Echo: value } });
  await reply(x, 200, {}, body);
}

/** Approve an order: its Status becomes `Approved` (a change, so a new ETag). */
export async function approve(x: Exchange, store: OrderStore, order: OrderRecord, comment: unknown): Promise<void> {
  if (comment !== undefined && comment !== null) asString(comment, 'Comment');
  checkIfMatch(x, store.etag(order), false);
  store.update(order, { Status: 'Approved' }, x.dialect, false);
  await reply(x, 200, { etag: store.etag(order) }, orderEntityBody(store, order, x.dialect, x.root, false));
}

/** Bound collection action: every order gets Status `Closed`; answers how many. */
export async function closeAll(x: Exchange, store: OrderStore): Promise<void> {
  for (const order of store.orders.values()) store.update(order, { Status: 'Closed' }, x.dialect, false);
  await reply(x, 200, {}, JSON.stringify({ '@odata.context': `${x.root}$metadata#Edm.Int32`, value: store.orders.size }));
}

/** Bound collection function: the sum of every order's Amount, exact. */
export async function totalAmount(x: Exchange, store: OrderStore): Promise<void> {
  let cents = 0n;
  for (const order of store.orders.values()) {
    const [whole = '0', frac = ''] = String(order.values['Amount']).split('.');
    cents += BigInt(whole) * 100n + (whole.startsWith('-') ? -1n : 1n) * BigInt((frac + '00').slice(0, 2));
  }
  const abs = cents < 0n ? -cents : cents;
  const text = `${cents < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
  const amount = ORDER_FIELDS.find((f) => f.name === 'Amount')!;
  await reply(x, 200, {}, `{"@odata.context":${JSON.stringify(`${x.root}$metadata#Edm.Decimal`)},"value":${writeValue(amount, text, x.dialect)}}`);
}

/** StartJob: 202 with a monitor when asked for (`Prefer: respond-async` or `Async`), else the result now. */
export async function startJob(x: Exchange, jobs: Jobs, params: Record<string, unknown>): Promise<void> {
  const p: JobParams = {};
  if (params['Polls'] !== undefined) p.Polls = asInt(params['Polls'], 'Polls');
  if (params['Outcome'] !== undefined) p.Outcome = asString(params['Outcome'], 'Outcome') as JobParams['Outcome'];
  if (params['Monitor'] !== undefined) p.Monitor = asString(params['Monitor'], 'Monitor') as JobParams['Monitor'];
  if (params['RetryAfter'] !== undefined) p.RetryAfter = asInt(params['RetryAfter'], 'RetryAfter');
  if (params['ResultOrigin'] !== undefined) p.ResultOrigin = asString(params['ResultOrigin'], 'ResultOrigin');
  p.Async = params['Async'] === true;
  const job = jobs.start(p);
  if (prefers(x, 'respond-async') || p.Async) {
    const headers: Record<string, string> = { location: `${x.root}$jobs/${job.id}` };
    if (prefers(x, 'respond-async')) headers['preference-applied'] = 'respond-async';
    if (p.RetryAfter !== undefined) headers['retry-after'] = String(p.RetryAfter);
    await reply(x, 202, headers);
    return;
  }
  if (job.outcome === 'Failed') throw new ODataServerError(500, 'JobFailed', `Job ${job.id} failed`);
  await reply(x, 200, {}, resultBody(x, jobs.result(job)));
}

/** The body of a job's result. */
export function resultBody(x: Exchange, result: { JobID: number; Outcome: string }): string {
  return x.version === 4 ? JSON.stringify({ '@odata.context': `${x.root}$metadata#Demo.JobResult`, ...result }) : JSON.stringify({ d: result });
}

/** `$jobs/<id>` (GET polls, DELETE cancels) and `$jobs/<id>/result`. */
export async function monitor(x: Exchange, jobs: Jobs, rest: string): Promise<void> {
  const m = /^\$jobs\/(\d+)(\/result)?$/.exec(rest);
  if (!m) throw new ODataServerError(404, 'NotFound', `No job monitor at ${rest}`);
  const job = jobs.get(Number(m[1]));
  if (m[2]) {
    if (x.method !== 'GET') throw new ODataServerError(405, 'MethodNotAllowed', 'A job result is read with GET');
    return reply(x, 200, {}, resultBody(x, jobs.result(job)));
  }
  if (x.method === 'DELETE') {
    job.cancelled = true;
    return reply(x, 204, {});
  }
  if (x.method !== 'GET') throw new ODataServerError(405, 'MethodNotAllowed', 'A job monitor is read with GET or cancelled with DELETE');
  const answer = jobs.poll(job, `${x.root}$jobs/${job.id}`, new URL(x.root).origin);
  if (answer.embedded !== undefined) {
    const { status, body } = answer.embedded;
    const json = 'JobID' in (body as object) ? resultBody(x, body as { JobID: number; Outcome: string }) : JSON.stringify(body);
    const head = [`HTTP/1.1 ${status} ${status < 400 ? 'OK' : 'Internal Server Error'}`, 'Content-Type: application/json', ...Object.entries(versionHeader(x)).map(([n, v]) => `${n}: ${v}`)];
    x.res.writeHead(answer.status, { ...versionHeader(x), ...answer.headers }).end(`${head.join('\r\n')}\r\n\r\n${json}`);
    return;
  }
  if (answer.body === undefined) return reply(x, answer.status, answer.headers);
  const body = 'JobID' in (answer.body as object) ? resultBody(x, answer.body as { JobID: number; Outcome: string }) : JSON.stringify(answer.body);
  return reply(x, answer.status, answer.headers, body);
}

/** Reads the JSON body of an action call (v4), or `{}` when it is empty. */
export function actionParams(x: Exchange): Record<string, unknown> {
  return x.body.trim() === '' ? {} : jsonBody(x);
}
