import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { chmod, rename, stat, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { outFileError, partialFileName } from './out-file.js';

/** Where exported text goes. `commit` makes it final; `discard` leaves nothing that looks complete. */
export interface Sink {
  /** What the summary names: the file, or `stdout`. */
  readonly name: string;
  /**
   * Writes `text`; resolves when more may be written (which can be before the bytes are out). `written`, if
   * given, is called once the output has taken all of them (after that it no longer reads a Uint8Array passed);
   * it is not called for a write that failed.
   */
  write(text: string | Uint8Array, written?: () => void): Promise<void>;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

async function writeTo(stream: NodeJS.WritableStream, text: string | Uint8Array, written?: () => void): Promise<void> {
  const more = written === undefined ? stream.write(text) : stream.write(text, (error) => { if (!error) written(); });
  if (!more) await once(stream, 'drain');
}

/** Temporary files not yet renamed or removed, removed on a forced exit. */
const pending = new Set<string>();

/** Removes the temporary files of unfinished exports (for a second Ctrl-C, which exits at once). */
export function removePendingFiles(): void {
  for (const path of pending) rmSync(path, { force: true });
  pending.clear();
}

/**
 * A file written atomically: the text goes to a temporary file beside the target
 * (`<name>.sluice-partial-<host>-<pid>`), renamed over it by `commit`. A failed or interrupted export
 * removes the temporary file, so the target is either the complete export or untouched; an existing
 * target keeps its permissions. Check the target with {@link checkOutFile} before anything is read.
 */
export class FileSink implements Sink {
  private constructor(readonly name: string, private readonly temp: string, private readonly stream: WriteStream) {}

  static async open(path: string): Promise<FileSink> {
    const temp = partialFileName(path);
    // A file of ours by that name is a leftover of a killed process that had our pid.
    await unlink(temp).catch(() => undefined);
    const stream = createWriteStream(temp, { flags: 'wx' });
    pending.add(temp);
    try {
      await once(stream, 'open');
    } catch (error) {
      pending.delete(temp);
      throw outFileError(path, error);
    }
    return new FileSink(path, temp, stream);
  }

  write(text: string | Uint8Array, written?: () => void): Promise<void> {
    return writeTo(this.stream, text, written);
  }

  async commit(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(resolve);
    });
    // The replaced file's permissions stay (a 0600 export stays private).
    const mode = await stat(this.name).then((st) => st.mode & 0o7777, () => undefined);
    if (mode !== undefined) await chmod(this.temp, mode);
    await rename(this.temp, this.name);
    pending.delete(this.temp);
  }

  async discard(): Promise<void> {
    // A write may still be in flight (a Parquet header, a page of text): destroying the stream fails it, which
    // is of no interest now, so that failure is caught here instead of escaping; the file closes before it goes.
    this.stream.on('error', () => undefined);
    if (!this.stream.closed) {
      await new Promise<void>((resolve) => {
        this.stream.once('close', () => resolve());
        this.stream.destroy();
      });
    }
    await unlink(this.temp).catch(() => undefined);
    pending.delete(this.temp);
  }
}

/** The reader of stdout went away (`sluice export ... | head`): the export stops quietly. */
export class OutputClosed extends Error {
  constructor() {
    super('the reader of stdout closed it');
    this.name = 'OutputClosed';
  }
}

const closedOr = (error: unknown): unknown => ((error as { code?: string }).code === 'EPIPE' ? new OutputClosed() : error);

/** Standard output: records are written whole, so an interrupted export holds only whole records. */
export class StreamSink implements Sink {
  readonly name = 'stdout';
  private failure: unknown;

  constructor(private readonly stream: NodeJS.WritableStream) {
    // A write error also arrives as an event: keep it for the next write instead of crashing.
    stream.on('error', (error) => { this.failure ??= error; });
  }

  async write(text: string | Uint8Array, written?: () => void): Promise<void> {
    if (this.failure !== undefined) throw closedOr(this.failure);
    try {
      await writeTo(this.stream, text, written);
    } catch (error) {
      throw closedOr(error);
    }
  }

  async commit(): Promise<void> {}

  async discard(): Promise<void> {}
}
