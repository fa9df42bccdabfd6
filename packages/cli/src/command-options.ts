// Every command's options and their choice lists, free of what runs the commands: main.ts declares each
// command with these (so `--help` is complete) and loads a command's implementation only when it runs.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { duration, size } from './limits.js';

/** Environment variable of each auth setting. */
export const AUTH_ENV = {
  token: 'SLUICE_TOKEN',
  user: 'SLUICE_USER',
  password: 'SLUICE_PASSWORD',
  clientId: 'SLUICE_CLIENT_ID',
  clientSecret: 'SLUICE_CLIENT_SECRET',
  tokenUrl: 'SLUICE_TOKEN_URL',
  authUrl: 'SLUICE_AUTH_URL',
  scope: 'SLUICE_SCOPE',
} as const;

/** The environment variable holding the passphrase of an encrypted `--key` or of `--pfx` (never a flag). */
export const PASSPHRASE_ENV = 'SLUICE_KEY_PASSPHRASE';

/** The values of `--compression`. */
export const COMPRESSIONS = ['snappy', 'zstd', 'gzip', 'none'] as const;

/** `--progress`: `auto` shows it when stderr is a terminal. */
export const PROGRESS_MODES = ['auto', 'always', 'never'] as const;
export type ProgressMode = (typeof PROGRESS_MODES)[number];

/** `--mode` of `sluice sync`. */
export const SYNC_MODES = ['auto', 'delta', 'snapshot'] as const;

export function integer(min: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return Number(text);
  };
}

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Flags for reaching the service: version, headers, timeout, retries and auth. */
export function connectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--version <version>', 'OData version of the service').choices(['2', '4', 'auto']).default('auto'))
    .option('-H, --header <header>', 'extra request header "Name: value" (repeatable)', collect)
    .option('--timeout <duration>', 'timeout of each request: 30, 30s, 500ms, 2m', duration)
    .option('--retries <n>', 'times a failed request or page is tried again', integer(0))
    .option('--token <token>', `bearer token (prefer ${AUTH_ENV.token})`)
    .option('--user <name>', `user for Basic auth; the password comes from ${AUTH_ENV.password}`)
    .option('--password <password>', `password for Basic auth (prefer ${AUTH_ENV.password})`)
    .option('--client-id <id>', `OAuth client id (${AUTH_ENV.clientId})`)
    .option('--client-secret <secret>', `OAuth client secret (prefer ${AUTH_ENV.clientSecret})`)
    .option('--token-url <url>', `OAuth token endpoint (${AUTH_ENV.tokenUrl})`)
    .option('--auth-url <url>', `OAuth authorization endpoint: sign in with a browser, PKCE (${AUTH_ENV.authUrl})`)
    .option('--scope <scope>', `OAuth scope (repeatable; ${AUTH_ENV.scope})`, collect)
    .option('--token-param <name=value>', 'extra token request parameter, such as resource=... (repeatable)', collect)
    .option('--no-browser', 'print the sign-in URL without opening a browser')
    .option('--proxy <url>', 'proxy for every request (default: HTTPS_PROXY, HTTP_PROXY and NO_PROXY; a proxy password belongs there, not here)')
    .option('--no-proxy', 'connect directly, ignoring HTTPS_PROXY and HTTP_PROXY')
    .option('--ca <file>', 'PEM file of certificate authorities to trust besides the built-in ones, such as a company CA')
    .option('--cert <file>', 'client certificate (PEM) for mutual TLS, with --key')
    .option('--key <file>', `private key (PEM) of --cert; the passphrase of an encrypted key comes from ${PASSPHRASE_ENV}`)
    .option('--pfx <file>', `client certificate and key as one PKCS#12 file (.p12, .pfx); its passphrase comes from ${PASSPHRASE_ENV}`)
    .option('--max-metadata-size <size>', 'largest $metadata document to read (default 64MiB): 512k, 64MiB, 100MB', size)
    .option('-v, --verbose', 'explain what happens on stderr (never secrets)');
}

/** Query option flags of `export`, `count` and `url`. */
export function queryOptions(command: Command, withPaging = true): Command {
  command
    .option('--filter <expr>', '$filter, sent as written, such as "Price lt 20"')
    .option('--search <text>', '$search (free text)')
    .option('--param <name=value>', 'custom query option such as sap-client=100 (repeatable)', collect);
  if (!withPaging) return command;
  return command
    .option('--select <props>', '$select: comma-separated properties')
    .option('--expand <navs>', '$expand: comma-separated navigation properties')
    .option('--orderby <items>', '$orderby, such as "Price desc,Name"')
    .option('--top <n>', '$top: at most n records', integer(0))
    .option('--skip <n>', '$skip: skip the first n records', integer(0));
}

function positive(max: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > max) throw new InvalidArgumentError(`expected an integer from 1 to ${max}`);
    return Number(text);
  };
}

/** Longest `--retry-backoff`: one hour. */
const MAX_BACKOFF_MS = 3_600_000;

/** `--retry-backoff`: a duration from 1 ms to an hour, in whole ms. */
function backoff(text: string): number {
  const ms = duration(text);
  if (ms < 1 || ms > MAX_BACKOFF_MS || !Number.isInteger(ms)) throw new InvalidArgumentError('expected a duration from 1ms to 1h in whole ms, such as 500ms, 2s or 1m');
  return ms;
}

function rate(text: string): number {
  const n = Number(text.trim());
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0)) throw new InvalidArgumentError('expected requests per second, such as 20 or 2.5');
  return n;
}

/** Adds `--partitions`, `--partition-by`, `--boundaries`, `--parallel`, `--rate` and `--burst` (export and sync). */
export function rangeOptions(command: Command, partitionsHelp: string): Command {
  return command
    .option('--partitions <n>', partitionsHelp, positive(10_000))
    .option('--partition-by <property>', 'with --partitions: orderable property to split on (default: the single key)')
    .addOption(new Option('--boundaries <how>', 'with --partitions: quantiles ($count + one read per boundary, even partitions) or minmax (two reads, equal widths; integers)').choices(['quantiles', 'minmax']))
    .option('--parallel <k>', 'with --partitions: read k partitions at once (default 4), sharing the rate limit and token', positive(256))
    .option('--rate <n>', 'at most n requests per second in all (every partition, every worker)', rate)
    .option('--burst <n>', 'with --rate: requests that may go at once after a quiet spell (default 1)', positive(10_000));
}

/** Adds the partition flags to `sluice export`. */
export function partitionOptions(command: Command): Command {
  return rangeOptions(command, 'split the set into n ranges of --partition-by, one file each in the --out directory (part-00001.<format>, then _manifest.json)')
    .option('--queue <redis-url>', 'with --partitions: enqueue one BullMQ job per partition for `sluice worker` processes instead of reading here')
    .option('--queue-name <name>', 'with --queue: the BullMQ queue (default sluice-export)')
    .option('--attempts <n>', 'with --queue: attempts per partition, the first included (default 5)', positive(100))
    .option('--retry-backoff <duration>', 'with --queue: wait before the first retry of a failed partition, doubled each retry: 500ms, 2s, 1m (default 2s)', backoff)
    .option('--wait', 'with --queue: follow the workers and exit with the outcome');
}

/** The arguments and options of `sluice generate` besides the connection flags. */
export function generateOptions(command: Command): Command {
  return command
    .description('write TypeScript types for createODataClient<Service>() from $metadata (types only)')
    .argument('<source>', 'service root URL (its $metadata is read), or an .edmx, .xml or .json file')
    .option('-o, --out <file>', 'the .ts file to write (complete or not at all)')
    .option('--only <names>', 'only these entity sets, singletons and operation imports (comma-separated), with what they reference')
    .option('--check', 'write nothing: exit 1 naming what changed when the metadata no longer matches --out')
    .option('--runtime', 'also write <out>.model.ts: the model for createODataClient({ metadata }) (adds bytes to a bundle)')
    .addOption(new Option('--large-numbers <mode>', 'the client option the types are for: Int64 and Decimal as string or number').choices(['string', 'number']).default('string'))
    .addOption(new Option('--dates <mode>', 'the client option the types are for: instants as ISO string or Date').choices(['string', 'Date']).default('string'));
}
