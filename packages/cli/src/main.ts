// The `sluice` program: every command and option is declared here (so `--help` is complete), and a
// command's implementation (with the packages it needs: @sluice/sink, @sluice/codegen, @sluice/queue, ...)
// is loaded by `import()` only when that command runs.
import { Command, CommanderError, Option } from 'commander';
import {
  collect, COMPRESSIONS, connectionOptions, generateOptions, integer, partitionOptions, PROGRESS_MODES, queryOptions, rangeOptions, SYNC_MODES,
} from './command-options.js';
import { EXIT, Interrupted } from './errors.js';
import type { ExportFlags } from './export.js';
import type { GenerateFlags } from './generate.js';
import type { PartitionFlags } from './partition-flags.js';
import type { WorkerFlags } from './worker-command.js';
import { FORMATS } from './format-names.js';
import { duration, size } from './limits.js';
import { removePendingFiles } from './output.js';
import type { QueryFlags } from './query-flags.js';
import type { ConnectionFlags } from './session.js';
import type { SyncFlags } from './sync.js';
import { processTerminal } from './terminal.js';
import { VERSION } from './version.js';

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
      (await import('./partition-flags.js')).checkPartitionFlags(flags);
      if (flags.compression !== undefined) (await import('./parquet-export.js')).checkCompressionFlag(flags);
      const run = flags.partitions === undefined ? (await import('./export.js')).exportEntitySet
        : flags.queue === undefined ? (await import('./partitioned-export.js')).exportPartitioned : (await import('./queue-export.js')).exportViaQueue;
      await (await import('./young-generation.js')).withYoungGenerationHeld(() => run(service, set, flags, verboseOf(flags.verbose === true), signal));
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
      const { syncCommand } = await import('./sync.js');
      await (await import('./young-generation.js')).withYoungGenerationHeld(() => syncCommand(service, set, flags, verboseOf(flags.verbose === true), signal));
    });

  queryOptions(connectionOptions(program.command('count')
    .description('print the number of records of an entity set ($count), with --filter/--search')
    .argument('<service-url>').argument('<entity-set>')), false)
    .action(async (service: string, set: string, _o, command: Command) => {
      const flags = flagsOf<ConnectionFlags & QueryFlags>(command);
      await (await import('./commands.js')).countEntitySet(service, set, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(program.command('get')
    .description("print one entity as JSON: key 42, 'A' or OrderID=1,ItemNo='A'")
    .argument('<service-url>').argument('<entity-set>').argument('<key>')
    .option('--select <props>', '$select: comma-separated properties')
    .option('--expand <navs>', '$expand: comma-separated navigation properties'))
    .action(async (service: string, set: string, key: string, _o, command: Command) => {
      const flags = flagsOf<ConnectionFlags & { select?: string; expand?: string }>(command);
      await (await import('./commands.js')).getEntity(service, set, key, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(program.command('metadata')
    .description('list entity sets, types, keys and navigation of $metadata')
    .argument('<service-url>')
    .option('--json', 'print JSON instead of a table'))
    .action(async (service: string, _o, command: Command) => {
      const flags = flagsOf<ConnectionFlags & { json?: boolean }>(command);
      await (await import('./commands.js')).showMetadata(service, flags, verboseOf(flags.verbose === true), signal);
    });

  connectionOptions(generateOptions(program.command('generate')))
    .action(async (source: string, _o, command: Command) => {
      const flags = flagsOf<GenerateFlags>(command);
      await (await import('./generate.js')).generateTypes(source, flags, verboseOf(flags.verbose === true), signal);
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
    .action(async (service: string, set: string, _o, command: Command) => {
      (await import('./commands.js')).printURL(service, set, flagsOf<QueryFlags & { odataVersion: '2' | '4' }>(command), verboseOf(false));
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
    // Describing an error takes the error classes of the client packages: loaded only now.
    const { describeError, exitCodeFor } = await import('./error-report.js');
    if (!(reason instanceof Interrupted)) process.stderr.write(`${describeError(reason)}\n`);
    return exitCodeFor(reason);
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
