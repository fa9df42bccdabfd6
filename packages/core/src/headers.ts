/**
 * Response headers: case-insensitive lookup over the lower-case names the transport delivered. Repeated
 * headers are joined with `, ` except `set-cookie`, whose values are in {@link ResponseHeaders.getSetCookie}.
 *
 * @example
 * ```ts
 * const res = await client.get('users')
 * res.headers.get('Content-Type') // 'application/json'
 * ```
 */
export class ResponseHeaders implements Iterable<[string, string]> {
  constructor(
    private readonly raw: Readonly<Record<string, string>>,
    private readonly setCookie: readonly string[] = [],
  ) {}

  /** The value of `name`, or null when absent. */
  get(name: string): string | null {
    return this.raw[name.toLowerCase()] ?? null;
  }

  /** Whether `name` is present. */
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  /** Every `set-cookie` value, unjoined. */
  getSetCookie(): string[] {
    return [...this.setCookie];
  }

  /** `[name, value]` pairs, lower-case names. */
  *[Symbol.iterator](): Iterator<[string, string]> {
    for (const name of Object.keys(this.raw)) yield [name, this.raw[name]!];
  }

  /** A plain object copy; `omit` drops names (lower-case). */
  toObject(omit: readonly string[] = []): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of Object.keys(this.raw)) if (!omit.includes(name)) out[name] = this.raw[name]!;
    return out;
  }
}
