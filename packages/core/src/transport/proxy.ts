import { BlockList, isIP } from 'node:net';
import { ConfigError, NetworkError } from '../errors.js';
import { redactURL } from '../redact.js';

/**
 * Where requests go: `'env'` (the default) reads `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`
 * (lower-case names first) once, when the transport is created, as curl and undici's
 * `EnvHttpProxyAgent` do; a URL (`http://user:pass@proxy.corp:8080`) sends every request through that
 * proxy; `false` connects directly whatever the environment says.
 */
export type ProxyOption = 'env' | string | URL | false;

/** One proxy server, parsed: credentials split off so that nothing prints them. */
export interface ProxyServer {
  /** `http(s)://host:port` of the proxy, without credentials: safe to show. */
  readonly origin: string;
  readonly hostname: string;
  readonly port: number;
  /** `Basic ...` from the URL's user-info, sent only to the proxy (`proxy-authorization`). */
  readonly authorization: string | undefined;
}

/** Which proxy each target uses, decided once per transport. */
export interface ProxyPlan {
  readonly http: ProxyServer | undefined;
  readonly https: ProxyServer | undefined;
  /** Targets reached directly (`NO_PROXY`); `'*'` means every target. */
  readonly bypass: NoProxyRules | '*';
}

interface HostRule { host: string; port: number }

/** Parsed `NO_PROXY`: host names (and their subdomains), IP addresses and CIDR ranges, each with an optional port. */
export interface NoProxyRules {
  readonly hosts: readonly HostRule[];
  readonly ranges: BlockList | undefined;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

function envValue(env: NodeJS.ProcessEnv, name: string): { name: string; value: string } | undefined {
  for (const key of [name.toLowerCase(), name]) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') return { name: key, value: value.trim() };
  }
  return undefined;
}

/**
 * Parses a proxy URL. A value without a scheme (`proxy.corp:3128`) means `http://`, as in curl. The
 * message of a ConfigError never repeats the value: it may hold a password.
 */
export function parseProxyURL(option: string, value: string | URL): ProxyServer {
  const text = String(value);
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  if (!URL.canParse(withScheme)) throw new ConfigError(option, 'is not a valid proxy URL');
  const url = new URL(withScheme);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(option, `must use http or https (CONNECT tunnels carry https traffic), got ${url.protocol.slice(0, -1)}`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(option, `must be a proxy origin such as http://proxy.corp:3128, without a path or query`);
  }
  const authorization = url.username === ''
    ? undefined
    : `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol]! : Number(url.port);
  return { origin: `${url.protocol}//${url.host}`, hostname: url.hostname.replace(/^\[|\]$/g, ''), port, authorization };
}

/** Parses a `NO_PROXY` value: `*`, or comma/space separated `host`, `.host`, `*.host`, `host:port`, IPs and CIDR ranges. */
export function parseNoProxy(value: string): NoProxyRules | '*' {
  const hosts: HostRule[] = [];
  let ranges: BlockList | undefined;
  for (const raw of value.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return '*';
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr !== null && isIP(cidr[1]!) !== 0) {
      ranges ??= new BlockList();
      const family = isIP(cidr[1]!) === 4 ? 'ipv4' : 'ipv6';
      ranges.addSubnet(cidr[1]!, Number(cidr[2]), family);
      continue;
    }
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const withPort = /^([^:]+):(\d+)$/.exec(entry);
    const [host, port] = bracketed !== null
      ? [bracketed[1]!, Number(bracketed[2] ?? 0)]
      : withPort !== null ? [withPort[1]!, Number(withPort[2])] : [entry, 0];
    hosts.push({ host: host.replace(/^\*?\./, ''), port });
  }
  return { hosts, ranges };
}

/** Whether `NO_PROXY` sends a target straight to its server (a host rule also covers its subdomains). */
function bypasses(rules: NoProxyRules | '*', hostname: string, port: number): boolean {
  if (rules === '*') return true;
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  for (const rule of rules.hosts) {
    if (rule.port !== 0 && rule.port !== port) continue;
    if (host === rule.host || host.endsWith(`.${rule.host}`)) return true;
  }
  const family = isIP(host);
  return rules.ranges !== undefined && family !== 0 && rules.ranges.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Resolves the `proxy` option into a plan, or undefined when every request goes direct (the fast path).
 * A bad URL, in the option or in the environment, is a ConfigError naming where it came from.
 */
export function resolveProxy(option: string, proxy: unknown, env: NodeJS.ProcessEnv = process.env): ProxyPlan | undefined {
  if (proxy === false) return undefined;
  if (proxy === undefined || proxy === 'env') {
    const http = envValue(env, 'HTTP_PROXY');
    const https = envValue(env, 'HTTPS_PROXY');
    const all = envValue(env, 'ALL_PROXY');
    if (http === undefined && https === undefined && all === undefined) return undefined;
    const parse = (found: { name: string; value: string } | undefined): ProxyServer | undefined =>
      found === undefined ? undefined : parseProxyURL(`${found.name} (environment, used because ${option} is 'env')`, found.value);
    const httpServer = parse(http ?? all);
    // As undici's EnvHttpProxyAgent: https targets fall back to the HTTP proxy.
    const httpsServer = parse(https) ?? parse(all) ?? httpServer;
    return { http: httpServer, https: httpsServer, bypass: parseNoProxy(envValue(env, 'NO_PROXY')?.value ?? '') };
  }
  if (typeof proxy === 'string' || proxy instanceof URL) {
    const server = parseProxyURL(option, proxy);
    return { http: server, https: server, bypass: { hosts: [], ranges: undefined } };
  }
  if (proxy !== null && typeof proxy === 'object') {
    // undici's ProxyAgent takes { uri, token }; here the URL itself is the option.
    throw new ConfigError(option, `must be 'env', a proxy URL or false, got an object (keys: ${Object.keys(proxy).join(', ') || 'none'}); give the URL itself, credentials in it: 'http://user:password@proxy:3128'`);
  }
  throw new ConfigError(option, `must be 'env', a proxy URL or false, got ${typeof proxy}`);
}

/** The proxy a target origin goes through under `plan`, or undefined for a direct connection. */
export function proxyFor(plan: ProxyPlan, origin: string): ProxyServer | undefined {
  const url = new URL(origin);
  const server = url.protocol === 'https:' ? plan.https : plan.http;
  if (server === undefined) return undefined;
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] ?? 0 : Number(url.port);
  return bypasses(plan.bypass, url.hostname, port) ? undefined : server;
}

/**
 * The proxy refused the tunnel (its `CONNECT` answered `407 Proxy Authentication Required`, `403`,
 * `502`...) or could not be reached. `proxy` is the proxy's origin, never its credentials. A refusal
 * (`status` set) is not retried; an unreachable proxy is a network error like any other and is.
 *
 * @example
 * ```ts
 * try { await client.get('orders') } catch (err) {
 *   if (err instanceof ProxyError && err.status === 407) console.error(`check the credentials for ${err.proxy}`)
 * }
 * ```
 */
export class ProxyError extends NetworkError {
  /** `http(s)://host:port` of the proxy. */
  readonly proxy: string;
  /** The status of the proxy's answer to `CONNECT`, or undefined when it could not be reached. */
  readonly status: number | undefined;
  /** The proxy said no (a 4xx answer such as 407): retrying the same request cannot help. */
  readonly refused: boolean;
  constructor(
    method: string, url: string, proxy: string, status: number | undefined,
    options?: { cause?: unknown; withCredentials?: boolean | undefined },
  ) {
    const withCredentials = options?.withCredentials === true;
    super(method, url, options);
    this.proxy = proxy;
    this.status = status;
    this.refused = status !== undefined && status >= 400 && status < 500;
    this.message = `${method} ${redactURL(url)}: ${describeFailure(proxy, status, withCredentials, this.code)}`;
  }
}

/** What went wrong with the proxy, in words that say what to do about it. */
function describeFailure(proxy: string, status: number | undefined, withCredentials: boolean, code: string | undefined): string {
  if (status === undefined) return `the proxy ${proxy} could not be reached (${code ?? 'connection error'})`;
  if (status !== 407 && status !== 401) return `the proxy ${proxy} refused the tunnel with status ${status}`;
  return withCredentials
    ? `the proxy ${proxy} did not accept the credentials in the proxy URL (status ${status})`
    : `the proxy ${proxy} asks for credentials (${status} ${status === 407 ? 'Proxy Authentication Required' : 'Unauthorized'}); give them in the proxy URL`;
}

const CONNECT_REFUSED = /^Proxy response \((\d{3})\)/;
/** Failures to open a connection: through a tunnel, every connection the transport opens is to the proxy. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Recognises an undici error of a request sent through `server` as the proxy's doing. Through a tunnel
 * every connection is to the proxy, so a failure to connect is the proxy's; TLS errors with the target
 * (after the tunnel is up) stay network errors of the target.
 */
export function toProxyError(error: unknown, server: ProxyServer, method: string, url: string): ProxyError | undefined {
  if (!(error instanceof Error)) return undefined;
  const refused = CONNECT_REFUSED.exec(error.message);
  if (refused !== null) {
    return new ProxyError(method, url, server.origin, Number(refused[1]), { cause: error, withCredentials: server.authorization !== undefined });
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) return new ProxyError(method, url, server.origin, undefined, { cause: error });
  return undefined;
}
