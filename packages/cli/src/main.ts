import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AUTH_ENV } from './auth.js';
import { countEntitySet, getEntity, printURL, showMetadata } from './commands.js';
import { describeError, EXIT, exitCodeFor, Interrupted } from './errors.js';
import { exportEntitySet, type ExportFlags } from './export.js';
import { generateOptions, generateTypes, type GenerateFlags } from './generate.js';
import { checkPartitionFlags, partitionOptions, rangeOptions, type PartitionFlags } from './partition-flags.js';
import { exportPartitioned } from './partitioned-export.js';
import type { WorkerFlags } from './worker-command.js';
import { FORMATS } from './formats.js';
import { checkCompressionFlag, COMPRESSIONS } from './parquet-export.js';
import { duration, size } from './limits.js';
import { removePendingFiles } from './output.js';
import { PROGRESS_MODES } from './progress.js';
import type { QueryFlags } from './query-flags.js';
import type { ConnectionFlags } from './session.js';
import { SYNC_MODES, syncCommand, type SyncFlags } from './sync.js';
import { processTerminal } from './terminal.js';
import { PASSPHRASE_ENV } from './transport-flags.js';
import { VERSION } from './version.js';

function integer(min: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text.trim()) || Number(text) < min) throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return Number(text);
  };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Flags for reaching the service: version, headers, timeout, retries and auth. */
function connectionOptions(command: Command): Command {
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
function queryOptions(command: Command, withPaging = true): Command {
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

/** Commander's camel-cased flags; `--version` of a command is the OData version. */
function flagsOf<T>(command: Command): T {
  const { version, ...rest } = command.opts<Record<string, unknown>>();
  return { ...rest, odataVersion: version } as T;
}

/** Builds the `sluice` program; each action runs with the signal that Ctrl-C and SIGTERM abort. */
export function buildProgram(signal: AbortSignal, verboseOf: (verbose: boolean) => ReturnType<typeof processTerminal>): Command {
  const program = new Command('sluice')
    .description('Export and query OData v2/v4 services: entity sets to NDJSON, CSV or JSON, in constant memory, with OAuth.')
    .version(VERSION, '-V, --version', 'print the sluice version')
    .enablePositionalOptions()
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) });

  queryOptions(connectionOptions(partitionOptions(program.command('export')
    .description('stream an entity set to NDJSON (default), CSV, JSON or Parquet')
    .argument('<service-url>', 'service root, such as https://host/odata/v4/catalog/')
    .argument('<entity-set>', 'entity set to export, such as Products')
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS).default('ndjson'))
    .option('-o, --out <file>', 'write to this file (complete or not at all) instead of stdout')
    .addOption(new Option('--compression <codec>', 'Parquet: compression of the pages (zstd needs Node >= 22.15)').choices(COMPRESSIONS))
    .option('--csv-raw', "CSV: keep text starting with =, +, -, @, tab or CR as is (default: prefix it with ' so spreadsheets do not run it)")
    .option('--page-size <n>', 'records per page to ask for (Prefer: odata.maxpagesize)', integer(1))
    .option('--max-record-size <size>', 'largest record to accept (default 64MiB): 512k, 64MiB, 1GiB', size)
    .option('--delta-state <file>', 'change tracking (OData v4 delta links, v2 SAP Gateway __delta): all records the first time, then only the changes since the last run; the delta link is kept in <file>; CSV gets _removed and _id columns')
    .option('--delta-reset', 'with --delta-state: forget the kept delta link and read everything again')
    .addOption(new Option('--progress <when>', 'progress bar on stderr').choices(PROGRESS_MODES).default('auto'))
    .option('-q, --quiet', 'no progress and no summary'))))
    .action(async (service: string, set: string, _o, command: Command) => {
      const flags = flagsOf<ExportFlags & PartitionFlags>(command);
      checkPartitionFlags(flags);
      checkCompressionFlag(flags);
      const run = flags.partitions === undefined ? exportEntitySet : flags.queue === undefined ? exportPartitioned : (await import('./queue-export.js')).exportViaQueue;
      await run(service, set, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(rangeOptions(program.command('sync')
    .description("keep a SQLite or PostgreSQL table equal to an entity set: everything the first time, then the service's changes")
    .argument('<service-url>').argument('<entity-set>')
    .option('--into <target>', 'sqlite:<file> or postgres://user@host:port/database (a password from PGPASSWORD or ~/.pgpass)')
    .option('--table <name>', 'the table (default: the entity set)')
    .addOption(new Option('--mode <mode>', 'delta: apply the changes; snapshot: reload each run; auto: delta when the service tracks changes').choices(SYNC_MODES).default('auto'))
    .option('--rebuild', 'reload everything into a new table that replaces the old one (after a schema change)')
    .option('--select <props>', '$select: the properties to keep (with the key)')
    .option('--filter <expr>', '$filter, sent as written')
    .option('--param <name=value>', 'custom query option such as sap-client=100 (repeatable)', collect)
    .addOption(new Option('--progress <when>', 'progress bar on stderr').choices(PROGRESS_MODES).default('auto'))
    .option('-q, --quiet', 'no progress, notices or summary'),
  'with --mode snapshot: read the load in n ranges of --partition-by, --parallel at once, into the staging table swapped in at the end'))
    .action(async (service: string, set: string, _o, command: Command) => {
      const flags = flagsOf<SyncFlags>(command);
      await syncCommand(service, set, flags, verboseOf(flags.verbose === true), signal);
    });

  queryOptions(connectionOptions(program.command('count')
    .description('print the number of records of an entity set ($count), with --filter/--search')
    .argument('<service-url>').argument('<entity-set>')), false)
    .action(async (service: string, set: string, _o, command: Command) => {
      const flags = flagsOf<ConnectionFlags & QueryFlags>(command);
      await countEntitySet(service, set, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(program.command('get')
    .description("print one entity as JSON: key 42, 'A' or OrderID=1,ItemNo='A'")
    .argument('<service-url>').argument('<entity-set>').argument('<key>')
    .option('--select <props>', '$select: comma-separated properties')
    .option('--expand <navs>', '$expand: comma-separated navigation properties'))
    .action(async (service: string, set: string, key: string, _o, command: Command) => {
      const flags = flagsOf<ConnectionFlags & { select?: string; expand?: string }>(command);
      await getEntity(service, set, key, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(program.command('metadata')
    .description('list entity sets, types, keys and navigation of $metadata')
    .argument('<service-url>')
    .option('--json', 'print JSON instead of a table'))
    .action(async (service: string, _o, command: Command) => {
      const flags = flagsOf<ConnectionFlags & { json?: boolean }>(command);
      await showMetadata(service, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(generateOptions(program.command('generate')))
    .action(async (source: string, _o, command: Command) => {
      const flags = flagsOf<GenerateFlags>(command);
      await generateTypes(source, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(program.command('worker')
    .description('read partitions that `sluice export --partitions N --queue <redis-url>` enqueued, until Ctrl-C')
    .argument('<redis-url>', 'the Redis of the queue, such as redis://127.0.0.1:6379')
    .option('--concurrency <k>', 'partitions read at once (default 1)', integer(1))
    .option('--queue-name <name>', 'the BullMQ queue (default sluice-export)')
    .option('--lock-duration <duration>', 'how long a dead worker holds its partition before another takes it (default 30s)', duration)
    .option('--stalled-interval <duration>', 'how often to look for partitions of dead workers (default 30s)', duration)
    .option('-q, --quiet', 'no line per partition'))
    .action(async (redisURL: string, _o, command: Command) => {
      const flags = flagsOf<WorkerFlags>(command);
      await (await import('./worker-command.js')).runWorker(redisURL, flags, verboseOf(flags.verbose === true), signal);
    });

  queryOptions(program.command('url')
    .description('print the URL a query would request (no network; OData 4 unless --version 2)')
    .argument('<service-url>').argument('<entity-set>')
    .addOption(new Option('--version <version>', 'OData version').choices(['2', '4']).default('4')))
    .action((service: string, set: string, _o, command: Command) => {
      printURL(service, set, flagsOf<QueryFlags & { odataVersion: '2' | '4' }>(command), verboseOf(false));
    });
  return program;
}

/**
 * Runs `sluice` with `argv` (without node and script) and resolves with the exit code: 0 ok, 1 remote
 * or network failure, 2 usage, 130 Ctrl-C, 143 SIGTERM. A second signal exits at once.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (controller.signal.aborted) {
      removePendingFiles();
      process.exit(new Interrupted(signal).exitCode);
    }
    controller.abort(new Interrupted(signal));
  };
  const onInt = (): void => onSignal('SIGINT');
  const onTerm = (): void => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    await buildProgram(controller.signal, (verbose) => processTerminal(verbose)).parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed the message already; help and --version end with code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const reason = controller.signal.aborted ? controller.signal.reason : error;
    if (!(reason instanceof Interrupted)) process.stderr.write(`${describeError(reason)}\n`);
    return exitCodeFor(reason);
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
