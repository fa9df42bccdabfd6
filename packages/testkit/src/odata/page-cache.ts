// Optional byte-bounded LRU of serialized collection pages, so a benchmark that reads the same pages
// round after round pays for serialization once (off by default: it would hold page bytes in memory).

/** Least-recently-used cache of response bodies, bounded by their total size in bytes. */
export class PageCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The cached body for `key`, refreshed as most recently used. */
  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Stores `body` under `key`, evicting the least recently used bodies beyond the byte bound. */
  set(key: string, body: Buffer): void {
    if (body.length > this.maxBytes) return;
    const old = this.entries.get(key);
    if (old) { this.bytes -= old.length; this.entries.delete(key); }
    this.entries.set(key, body);
    this.bytes += body.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }

  /** Total bytes held. */
  get size(): number {
    return this.bytes;
  }
}
