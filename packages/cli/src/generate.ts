// `sluice generate`: TypeScript types for a service from its $metadata (a URL, fetched with the same auth,
// proxy and TLS flags as the other commands, or a file), written atomically; --check compares instead.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { redactURL } from '@sluice/core';
import { check, generate, generateRuntime } from '@sluice/codegen';
import { UsageError } from './errors.js';
import { checkOutFile } from './out-file.js';
import { FileSink } from './output.js';
import { DEFAULT_MAX_METADATA_BYTES } from './limits.js';
import { openService, type ConnectionFlags } from './session.js';
import type { Terminal } from './terminal.js';

/** Flags of `sluice generate`. */
export interface GenerateFlags extends ConnectionFlags {
  out?: string;
  only?: string;
  check?: boolean;
  runtime?: boolean;
  largeNumbers?: 'string' | 'number';
  dates?: 'string' | 'Date';
}

/** The generated files do not match the service's $metadata any more (`--check`): exit 1. */
export class GeneratedFileOutdated extends Error {
  constructor(file: string, source: string, changes: readonly string[]) {
    super(`${file} no longer matches ${source}: ${changes.length} change${changes.length === 1 ? '' : 's'} (listed above); run sluice generate without --check to write it again`);
    this.name = 'GeneratedFileOutdated';
  }
}

const isURL = (text: string): boolean => /^https?:\/\//i.test(text);

/** The `$metadata` text of a service root or of a file, and how the output names it. */
async function readMetadata(source: string, flags: GenerateFlags, terminal: Terminal, signal: AbortSignal): Promise<{ text: string; name: string }> {
  if (!isURL(source)) {
    const text = await readFile(source, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${source}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`, 'give a service URL (https://...) or an .edmx, .xml or .json file');
    });
    return { text, name: basename(source) };
  }
  const od = await openService(source, flags, terminal, signal);
  try {
    const q = source.indexOf('?');
    const root = q < 0 ? source : source.slice(0, q);
    const url = `${root.endsWith('/') ? root : `${root}/`}$metadata${q < 0 ? '' : source.slice(q)}`;
    const response = await od.http.request({ method: 'GET', path: url, headers: { accept: 'application/xml, application/json;q=0.9' }, signal });
    const text = await response.text();
    const limit = flags.maxMetadataSize ?? DEFAULT_MAX_METADATA_BYTES;
    if (Buffer.byteLength(text) > limit) throw new UsageError(`the $metadata of ${redactURL(source)} is larger than ${limit} bytes`, 'raise --max-metadata-size');
    return { text, name: redactURL(source) };
  } finally {
    await od.close();
  }
}

/**
 * `sluice generate`: writes the types (and with `--runtime` the model module beside them) complete or not
 * at all; with `--check`, compares the file with the metadata and fails naming what changed.
 */
export async function generateTypes(source: string, flags: GenerateFlags, terminal: Terminal, signal: AbortSignal): Promise<void> {
  const out = flags.out;
  if (out === undefined || out === '') throw new UsageError('--out <file.ts> is required', 'such as --out src/service.ts');
  if (flags.runtime && flags.check) throw new UsageError('--runtime cannot be combined with --check');
  const only = flags.only?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (!flags.check) await checkOutFile(out);
  const { text, name } = await readMetadata(source, flags, terminal, signal);
  const options = { source: name, only, largeNumbers: flags.largeNumbers, dates: flags.dates };
  if (flags.check) {
    const existing = await readFile(out, 'utf8').catch(() => {
      throw new UsageError(`--check: cannot read ${out}`, 'generate it first, without --check');
    });
    const result = check(existing, text, { ...options, file: out });
    if (result.upToDate) {
      terminal.note(`${out} matches ${name}`);
      return;
    }
    for (const change of result.changes) terminal.note(`  ${change}`);
    throw new GeneratedFileOutdated(out, name, result.changes);
  }
  // Everything is generated before anything is written: bad metadata leaves the files as they were.
  const files: Array<[string, string]> = [[out, generate(text, options)]];
  if (flags.runtime) files.unshift([out.replace(/(\.d)?\.[cm]?ts$/, '') + '.model.ts', generateRuntime(text, { source: name })]);
  for (const [path, content] of files) {
    if (path !== out) await checkOutFile(path);
    const sink = await FileSink.open(path);
    try {
      await sink.write(content);
      await sink.commit();
    } catch (error) {
      await sink.discard();
      throw error;
    }
    terminal.debug(`wrote ${path} (${Buffer.byteLength(content)} bytes)`);
  }
}
