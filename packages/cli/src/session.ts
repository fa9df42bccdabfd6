import { describeRequest, type Plugin, type RateLimiter, type RateLimitOptions, type SluiceEvent } from '@sluice/core';
import type { TokenCache } from '@sluice/oauth';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { authHttpOptions, authSecrets, resolveAuth, type AuthFlags, type AuthPlan } from './auth.js';
import { UsageError } from './errors.js';
import { scrubPrintedErrors } from './error-report.js';
import { countAttempt } from './attempts.js';
import { noteActivity } from './exit-guard.js';
import { DEFAULT_MAX_METADATA_BYTES, DEFAULT_MAX_RECORD_BYTES } from './limits.js';
import type { Terminal } from './terminal.js';
import { checkTLSFlags, explainTransportError, transportOptions, type TransportFlags } from './transport-flags.js';

/** Connection flags shared by every command that talks to a service. */
export interface ConnectionFlags extends AuthFlags, TransportFlags {
  odataVersion?: '2' | '4' | 'auto';
  header?: string[];
  timeout?: number;
  retries?: number;
  verbose?: boolean;
  /** `--max-metadata-size`, in bytes. */
  maxMetadataSize?: number;
  /** `--max-record-size` of `export`, in bytes. */
  maxRecordSize?: number;
}

/** `Name: value` headers of `--header`, names lower-cased. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 1) throw new UsageError(`--header expects "Name: value", got ${JSON.stringify(line.slice(0, 40))}`, 'for example --header "sap-language: EN"');
    const name = line.slice(0, colon).trim();
    out[name.toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

/** The service URL argument, checked with a readable message. */
export function checkServiceURL(text: string): string {
  if (!URL.canParse(text)) throw new UsageError(`not a URL: ${JSON.stringify(text.slice(0, 80))}`, 'the first argument is the service root, such as https://host/odata/v4/catalog/');
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`the service URL must use http or https, got ${url.protocol}`);
  if (url.username || url.password) throw new UsageError('the service URL must not carry credentials', 'use --user with SLUICE_PASSWORD instead');
  return text;
}

const VERSIONS = { '2': '2.0', '4': '4.0', auto: 'auto' } as const;

/** Describes the auth plan without its secrets, for `--verbose`. */
function describeAuth(plan: AuthPlan): string {
  switch (plan.kind) {
    case 'none': return 'no authentication';
    case 'bearer': return 'bearer token (hidden)';
    case 'basic': return `Basic as ${plan.user} (password hidden)`;
    case 'client-credentials': return `OAuth client credentials as ${plan.config.clientId} at ${plan.config.tokenURL}${plan.config.tokenEndpointAuthMethod === 'tls_client_auth' ? ', authenticated by the client certificate' : ''}`;
    case 'authorization-code': return `OAuth authorization code with PKCE as ${plan.config.clientId} at ${plan.config.authorizationURL ?? ''}`;
  }
}

/** `oauth.token.response ok=true status=200 durationMs=12` */
function describeEvent(event: SluiceEvent): string {
  const { type, ...fields } = event as { type: string } & Record<string, unknown>;
  const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : JSON.stringify(v));
  const parts = Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${text(v)}`);
  return [type, ...parts].join(' ');
}

/** With --verbose: a line per response, its URL redacted as in errors. */
function requestLog(terminal: Terminal): Plugin {
  return {
    name: 'sluice-cli-verbose',
    onResponse: (response, request, client) => { terminal.debug(client.secrets.scrub(`${describeRequest(request.method, request.url)} -> ${response.status}`)); },
  };
}

/** What a command adds to the client: a rate limit (`--rate`, or a fleet's shared one) and a shared token cache. */
export interface ServiceExtras {
  rateLimit?: RateLimitOptions | RateLimiter | undefined;
  /** Used by OAuth client credentials (a worker fleet shares one token). */
  tokenCache?: TokenCache | undefined;
}

/**
 * An OData client for the command: auth from flags and environment (signing in first for the
 * authorization-code flow), headers, timeout and retries.
 */
export async function openService(
  serviceURL: string, flags: ConnectionFlags, terminal: Terminal, signal: AbortSignal, defaultVersion: 'auto' | '4' = 'auto', extras: ServiceExtras = {},
): Promise<ODataClient> {
  checkServiceURL(serviceURL);
  let plan = resolveAuth(flags, terminal.env, flags.cert !== undefined || flags.pfx !== undefined);
  if (plan.kind === 'client-credentials' && extras.tokenCache !== undefined) plan = { ...plan, config: { ...plan.config, tokenCache: extras.tokenCache } };
  terminal.debug(`auth: ${describeAuth(plan)}`);
  const headers = parseHeaders(flags.header ?? []);
  if ('authorization' in headers && plan.kind !== 'none') throw new UsageError('--header Authorization conflicts with the auth flags', 'use one of them');
  const transport = transportOptions(flags, terminal.env);
  if (transport.proxy !== undefined) terminal.debug(`proxy: ${transport.proxy === false ? 'none (direct connections)' : String(transport.proxy)}`);
  if (transport.tls !== undefined) terminal.debug(`tls: ${describeTLS(flags)}`);
  // The browser sign-in is the one step a user waits for: the TLS files are checked before it, not after.
  if (plan.kind === 'authorization-code') await checkTLSFlags(transport);
  const auth = await authHttpOptions(plan, terminal, signal);
  try {
    const od = openClient(serviceURL, flags, defaultVersion, headers, auth, transport, terminal, extras.rateLimit);
    od.http.secrets.add(...authSecrets(plan));
    scrubPrintedErrors(od.http.secrets);
    return od;
  } catch (error) {
    throw explainTransportError(error);
  }
}

/** The files of the TLS flags, for `--verbose` (a passphrase is never shown). */
function describeTLS(flags: TransportFlags): string {
  const parts = [
    flags.ca === undefined ? '' : `CA ${flags.ca}`,
    flags.cert === undefined ? '' : `client certificate ${flags.cert}`,
    flags.pfx === undefined ? '' : `client certificate ${flags.pfx} (PKCS#12)`,
  ];
  return parts.filter(Boolean).join(', ');
}

/** The OData client of {@link openService}, with the options worked out. */
function openClient(
  serviceURL: string, flags: ConnectionFlags, defaultVersion: 'auto' | '4', headers: Record<string, string>,
  auth: Awaited<ReturnType<typeof authHttpOptions>>, transport: ReturnType<typeof transportOptions>, terminal: Terminal,
  rateLimit: ServiceExtras['rateLimit'],
): ODataClient {
  const retries = flags.retries;
  return createODataClient({
    serviceURL,
    version: VERSIONS[flags.odataVersion ?? defaultVersion],
    ...(retries === undefined ? {} : { pageRetries: retries }),
    maxRecordBytes: flags.maxRecordSize ?? DEFAULT_MAX_RECORD_BYTES,
    maxMetadataBytes: flags.maxMetadataSize ?? DEFAULT_MAX_METADATA_BYTES,
    http: {
      headers: { ...headers, ...auth.headers },
      plugins: flags.verbose ? [...auth.plugins, requestLog(terminal)] : auth.plugins,
      // Events never carry secrets: with --verbose each one is a line (token requests, rebased links, pauses).
      // request.start/response/end would repeat the line requestLog writes per response; retries and waits still show.
      // The last event is kept for the message of a process that ends unfinished (exit-guard.ts).
      onEvent: (event: SluiceEvent) => {
        noteActivity(() => describeEvent(event));
        countAttempt(event);
        if (flags.verbose && event.type !== 'request.start' && event.type !== 'request.response' && event.type !== 'request.end') terminal.debug(describeEvent(event));
      },
      ...(flags.timeout === undefined ? {} : { timeout: flags.timeout }),
      ...(retries === undefined ? {} : { retry: { maxAttempts: retries + 1 } }),
      ...(rateLimit === undefined ? {} : { rateLimit }),
      ...transport,
    },
  });
}
