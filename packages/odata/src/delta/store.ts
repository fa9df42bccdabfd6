// Where DeltaSync keeps its delta links between runs.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Keeps one delta link per key (a Redis store can implement the same three methods). */
export interface DeltaStore {
  load(key: string): Promise<string | undefined>;
  save(key: string, link: string): Promise<void>;
  clear(key: string): Promise<void>;
}

/**
 * A {@link DeltaStore} in one JSON file. Writes go to a temporary file that is then renamed over the old
 * one, so a crash leaves either the previous or the new links, never a torn file.
 */
export class FileDeltaStore implements DeltaStore {
  private queue: Promise<unknown> = Promise.resolve();
  constructor(readonly path: string) {}

  async load(key: string): Promise<string | undefined> {
    return (await this.read())[key];
  }

  save(key: string, link: string): Promise<void> {
    return this.update((links) => { links[key] = link; });
  }

  clear(key: string): Promise<void> {
    return this.update((links) => { delete links[key]; });
  }

  private async read(): Promise<Record<string, string>> {
    try {
      const doc = JSON.parse(await readFile(this.path, 'utf8')) as unknown;
      return typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? (doc as Record<string, string>) : {};
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }

  private update(change: (links: Record<string, string>) => void): Promise<void> {
    const next = this.queue.then(async () => {
      const links = await this.read();
      change(links);
      await mkdir(dirname(this.path), { recursive: true });
      const tmp = `${this.path}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(links), { mode: 0o600 });
      await rename(tmp, this.path);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
