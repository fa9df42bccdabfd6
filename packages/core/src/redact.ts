/**
 * Redaction rules (SPEC 5.6: no token, secret, code or cookie in errors, logs, events or URLs). Every
 * error that shows a URL builds it with {@link describeRequest} / {@link redactURL}; bodies kept on errors go
 * through {@link redactText}.
 */

/** The mark that replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/**
 * Parameter names (query and fragment) whose values are always redacted, compared case-insensitively with
 * `-` and `_` ignored (so `api-key`, `api_key`, `API_KEY` and `apikey` are one name). Add your own with
 * {@link addSensitiveParams}.
 */
export const SENSITIVE_PARAM_NAMES: readonly string[] = [
  'code', 'state', 'key', 'sig', 'sv', 'pwd', 'passwd', 'auth', 'authorization', 'assertion', 'client_assertion',
  'code_verifier', 'sessionid', 'otp',
  // The OpenTelemetry HTTP conventions' list for url.full/url.query (Signature, sig and X-Goog-Signature are covered above).
  'AWSAccessKeyId',
];

/** A parameter whose (normalised) name contains one of these is redacted too: `access_token`, `X-Amz-Signature`... */
export const SENSITIVE_PARAM_PARTS: readonly string[] = [
  'token', 'secret', 'password', 'passwd', 'signature', 'apikey', 'credential', 'session',
];

/**
 * Header names whose values are credentials. By default they are stripped on every redirect that leaves
 * the origin, the client's default headers carrying them go only to the base URL's origin, and
 * `client.options` shows them redacted. Add your own with the `sensitiveHeaders` client option.
 */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization', 'proxy-authorization', 'cookie', 'x-csrf-token', 'x-api-key', 'api-key', 'apikey', 'x-auth-token',
  'x-access-token', 'x-apikey', 'ocp-apim-subscription-key', 'x-functions-key', 'x-goog-api-key', 'private-token',
  'x-amz-security-token', 'x-session-token', 'x-vault-token',
];

/**
 * Names that contain a sensitive part but carry no secret (`token_type=bearer`). An OData `$skiptoken` is a
 * paging cursor the service wrote into its own next link, shown so an error tells which page failed; a
 * `$deltatoken` (SAP Gateway v2: `!deltatoken`) is the same kind of cursor in a delta link, shown so an
 * error or event tells which point of change tracking a run resumed from. Neither grants access without
 * the client's credentials (a `DeltaStore` keeps the delta link in clear anyway).
 */
const HARMLESS = new Set(['tokentype', 'tokenendpoint', 'tokenurl', 'expiresin', '$skiptoken', 'skiptoken', '$deltatoken', '!deltatoken', 'deltatoken']);
/** Names from {@link SENSITIVE_PARAM_NAMES} that, as JSON or XML field names, mean something else (an OData error `code`). */
const URL_ONLY = new Set(['code', 'state', 'key', 'sv']);

const extraParams = new Set<string>();
const exactParams = new Set(SENSITIVE_PARAM_NAMES.map(normalise));

function normalise(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

/**
 * Adds parameter names whose values {@link redactURL} and {@link redactText} hide, for the whole process
 * (error messages of every sluice package use them).
 *
 * @example
 * ```ts
 * addSensitiveParams('sap-passport', 'ticket')
 * ```
 */
export function addSensitiveParams(...names: string[]): void {
  for (const name of names) extraParams.add(normalise(name));
}

/** Whether the value of parameter (or JSON key) `name` is hidden by the redaction rules. */
export function isSensitiveParam(name: string): boolean {
  const n = normalise(name);
  if (HARMLESS.has(n)) return false;
  if (exactParams.has(n) || extraParams.has(n)) return true;
  for (const part of SENSITIVE_PARAM_PARTS) if (n.includes(part)) return true;
  return false;
}

/** A JSON or XML field name whose value is hidden: a sensitive parameter name, but `code`, `state`, `key` and `sv` are kept. */
function isSensitiveField(name: string): boolean {
  return !URL_ONLY.has(normalise(name)) && isSensitiveParam(name);
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/**
 * Redacts the values of sensitive names in an `a=1&b=2` list with `mark`, keeping everything else byte for byte.
 * A loop over the pairs rather than `split('&').map(...).join('&')`: the request path runs this for every
 * request's events, and the arrays of that chain did not keep one map from call to call, so V8 threw away the
 * optimised code of the request path that had inlined it ("wrong map" at the join) and compiled it again.
 */
function redactParams(list: string, mark: string): string {
  let out = '';
  for (let start = 0; ;) {
    const amp = list.indexOf('&', start);
    const end = amp < 0 ? list.length : amp;
    out += redactPair(list.slice(start, end), mark);
    if (amp < 0) return out;
    out += '&';
    start = amp + 1;
  }
}

/** One `name=value` pair of {@link redactParams}: the value replaced by `mark` when the name is sensitive. */
function redactPair(pair: string, mark: string): string {
  const eq = pair.indexOf('=');
  if (eq < 0) return pair;
  return isSensitiveParam(decodeName(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=${mark}` : pair;
}

/** `//user:pass@`, also JSON-escaped (`:\/\/user:pass@`). */
const USERINFO = /(\/\/|\\\/\\\/)[^/?#@\s]*@/g;

/**
 * Returns `url` fit for an error or a log line: user-info (`user:pass@`) removed, and the values of
 * sensitive parameters replaced by `[REDACTED]` in the query and in a fragment written as parameters
 * (`#access_token=...`, implicit-flow style). Works on relative URLs and on strings that do not parse;
 * everything else is kept as written.
 *
 * @example
 * ```ts
 * redactURL('https://u:p@h/cb?code=abc&x=1#id_token=t') // 'https://h/cb?code=[REDACTED]&x=1#id_token=[REDACTED]'
 * ```
 */
export function redactURL(url: string): string {
  return redactURLWith(url, REDACTED, '$1');
}

/**
 * `url.full` as the OpenTelemetry HTTP conventions want it: the values of sensitive parameters (those of
 * {@link redactURL}, which include the conventions' `AWSAccessKeyId`, `Signature`, `sig` and
 * `X-Goog-Signature`) as `REDACTED`, the key kept. (A request URL never carries user-info: the client refuses it.) @internal
 */
export function spanURL(url: string): string {
  return redactURLWith(url, 'REDACTED', '$1');
}

function redactURLWith(url: string, mark: string, userinfo: string): string {
  let out = String(url).replace(USERINFO, userinfo);
  const hash = out.indexOf('#');
  let fragment = '';
  if (hash >= 0) {
    fragment = out.slice(hash + 1);
    out = out.slice(0, hash);
    if (fragment.includes('=')) fragment = redactParams(fragment, mark);
  }
  const q = out.indexOf('?');
  if (q >= 0) out = out.slice(0, q + 1) + redactParams(out.slice(q + 1), mark);
  return hash >= 0 ? `${out}#${fragment}` : out;
}

/** `METHOD url` with the URL redacted: how every sluice error names a request. */
export function describeRequest(method: string, url: string): string {
  return `${method} ${redactURL(url)}`;
}

const JSON_PAIR = /"((?:[^"\\]|\\.){1,200})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
const FORM_PAIR = /([A-Za-z0-9_.~%-]{1,200})=([^&\s"'<>#]*)/g;
const XML_ELEMENT = /<((?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*))(\s[^>]*)?>([^<]*)<\/\1>/g;
// A JSON-escaped slash (`\/`, as PHP's json_encode writes it) is part of the credential, not its end.
const AUTH_SCHEME = /\b(Bearer|Basic|Digest|Negotiate)\s+(?:[A-Za-z0-9._~+/=-]|\\\/){6,}/gi;

/**
 * Redacts a free text such as a response body kept on an error: user-info in URLs, values of sensitive
 * names in JSON (`"client_secret": "..."`), form or query pairs (`password=...`) and XML elements
 * (`<password>...</password>`), and `Bearer` / `Basic` credentials. As JSON or XML field names, `code`,
 * `state`, `key` and `sv` are kept (an OData error's `code` is no secret); in `name=value` pairs they
 * are redacted.
 */
export function redactText(text: string): string {
  return text
    .replace(USERINFO, '$1')
    .replace(JSON_PAIR, (all, name: string, sep: string) => (isSensitiveField(name) ? `"${name}"${sep}"${REDACTED}"` : all))
    .replace(FORM_PAIR, (all, name: string) => (isSensitiveParam(decodeName(name)) ? `${name}=${REDACTED}` : all))
    .replace(XML_ELEMENT, (all, tag: string, local: string, attrs: string | undefined) => (
      isSensitiveField(local) ? `<${tag}${attrs ?? ''}>${REDACTED}</${tag}>` : all))
    .replace(AUTH_SCHEME, `$1 ${REDACTED}`);
}

/** A copy of `headers` with the values of `sensitive` names (lower-case) replaced by `[REDACTED]`. */
export function redactHeaders(headers: Readonly<Record<string, string>>, sensitive: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = sensitive.includes(name) ? REDACTED : value;
  return out;
}
