import { REDACTED } from './redact.js';

/** Values shorter than this are replaced only where they stand alone, so a secret `s` does not eat every letter s. */
const SHORT = 8;
/** How many {@link KnownSecrets.addRecent} values are kept (tokens renewed every hour must not pile up). */
const RECENT_LIMIT = 64;
/** A character that continues a token on either side of a short value (RFC 3986 unreserved). */
const TOKEN_CHAR = /[A-Za-z0-9._~-]/;

/**
 * The forms in which a server may echo `value` back: as sent, URL- and form-encoded, base64 and base64url,
 * and JSON-escaped (`\/` for `/`, as PHP's `json_encode` writes it).
 */
function formsOf(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = new Set([
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    bytes.toString('base64'),
    bytes.toString('base64').replace(/=+$/, ''),
    bytes.toString('base64url'),
    JSON.stringify(value).slice(1, -1),
    JSON.stringify(value).slice(1, -1).replace(/\//g, '\\/'),
  ]);
  return [...forms].filter((form) => form !== '');
}

/** Whether `text` at `start`..`end` is touched by a token character on either side. */
function embedded(text: string, start: number, end: number): boolean {
  return (start > 0 && TOKEN_CHAR.test(text[start - 1]!)) || (end < text.length && TOKEN_CHAR.test(text[end]!));
}

/** Sets `error[key]`: by assignment, else (a read-only field) by redefining it; a frozen error is left as it is. */
function replace(error: Error, key: string, value: unknown): void {
  try {
    (error as unknown as Record<string, unknown>)[key] = value;
    if ((error as unknown as Record<string, unknown>)[key] === value) return;
  } catch {
    // A setter that throws, or a read-only property in strict mode: redefine below.
  }
  try {
    Object.defineProperty(error, key, { value, enumerable: key !== 'message' && key !== 'stack', configurable: true, writable: true });
  } catch {
    // Frozen or non-configurable: nothing more can be done here.
  }
}

/** An object literal (headers, an error detail), not a class instance such as a Date or a nested error. */
function isPlain(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The secret values one client knows (SPEC 5.6): credentials in its headers, and whatever plugins register
 * (the OAuth plugin its client secret, the tokens and refresh tokens it obtains). Every error that leaves
 * the client, every event it emits (so the debug log and spans too) and every error body it reads pass
 * through {@link KnownSecrets.scrub}, which replaces each value, in every form a server may echo it in
 * (as sent, URL-encoded, base64, JSON-escaped), by `[REDACTED]`. This is on top of the pattern-based
 * redaction of `redactText`, which cannot recognise a bare token a server echoes in free text.
 *
 * @example
 * ```ts
 * import { createClient, type Plugin } from '@sluice/core'
 *
 * const apiKey: Plugin = {
 *   name: 'api-key',
 *   setup(client) { client.secrets.add(process.env.API_KEY) },
 *   onRequest(req) { req.headers['x-api-key'] = process.env.API_KEY ?? '' },
 * }
 * const client = createClient({ baseURL: 'https://api.example.com', plugins: [apiKey] })
 * console.log(client.secrets.scrub(`key ${process.env.API_KEY ?? ''} refused`)) // 'key [REDACTED] refused'
 * ```
 */
export class KnownSecrets {
  // ECMAScript private fields: util.inspect and JSON.stringify cannot reach them.
  readonly #pinned = new Set<string>();
  /** Values of {@link addRecent}, oldest first. */
  readonly #recent = new Set<string>();
  #forms: string[] | undefined = [];

  /** What `JSON.stringify` shows: how many values are known, never a value. */
  toJSON(): { size: number } {
    return { size: this.size };
  }

  /** What `util.inspect` shows: `KnownSecrets { size: 2 }`. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `KnownSecrets { size: ${this.size} }`;
  }

  /** How many values are known. */
  get size(): number {
    return this.#pinned.size + this.#recent.size;
  }

  /** Whether `value` itself is known (as added, not one of its forms). */
  has(value: string): boolean {
    return this.#pinned.has(value) || this.#recent.has(value);
  }

  /** Adds values known for the client's lifetime (a password, a client secret). Empty or undefined ones are ignored. */
  add(...values: (string | undefined)[]): this {
    for (const value of values) {
      if (value === undefined || value === '' || this.#pinned.has(value)) continue;
      this.#recent.delete(value);
      this.#pinned.add(value);
      this.#forms = undefined;
    }
    return this;
  }

  /** Adds values that are replaced over time (access tokens): only the latest {@link RECENT_LIMIT} are kept. */
  addRecent(...values: (string | undefined)[]): this {
    for (const value of values) {
      if (value === undefined || value === '' || this.#pinned.has(value) || this.#recent.has(value)) continue;
      this.#recent.add(value);
      if (this.#recent.size > RECENT_LIMIT) this.#recent.delete(this.#recent.values().next().value!);
      this.#forms = undefined;
    }
    return this;
  }

  /**
   * Adds the secrets of a credential header value: the whole value and its credentials after the scheme
   * (`Bearer <token>`); for `Basic`, also the decoded `user:password` and the password alone.
   */
  addCredential(headerValue: string, recent = false): this {
    const add = (value: string | undefined): this => (recent ? this.addRecent(value) : this.add(value));
    add(headerValue.trim());
    const match = /^([A-Za-z][\w!#$%&'*+.^`|~-]*)\s+(\S.*)$/.exec(headerValue.trim());
    if (match === null) return this;
    const [, scheme, credentials] = match as unknown as [string, string, string];
    add(credentials);
    if (scheme.toLowerCase() === 'basic' && /^[A-Za-z0-9+/]+=*$/.test(credentials)) {
      // RFC 7617 2: base64 of user-id ":" password; a server may echo either half decoded.
      const decoded = Buffer.from(credentials, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) {
        add(decoded);
        add(decoded.slice(colon + 1));
      }
    }
    return this;
  }

  /** `text` with every known secret, in each of its forms, replaced by `[REDACTED]`. */
  scrub(text: string): string;
  scrub(text: string | undefined): string | undefined;
  scrub(text: string | undefined): string | undefined {
    if (text === undefined || text === '' || this.size === 0) return text;
    let out = text;
    for (const form of this.allForms()) {
      if (!out.includes(form)) continue;
      if (form.length >= SHORT) {
        out = out.split(form).join(REDACTED);
        continue;
      }
      let at = out.indexOf(form);
      while (at >= 0) {
        const end = at + form.length;
        if (embedded(out, at, end)) at = out.indexOf(form, at + 1);
        else {
          out = out.slice(0, at) + REDACTED + out.slice(end);
          at = out.indexOf(form, at + REDACTED.length);
        }
      }
    }
    return out;
  }

  /**
   * `error` with every known secret scrubbed, in place, from its message, its string properties
   * (`bodyText`, `errorDescription`...), the strings of its plain-object properties and arrays of them
   * (`headers`, an OData error's `details`) and the errors of its `cause` chain. Returns `error`.
   */
  scrubError<E>(error: E): E {
    if (this.size === 0) return error;
    const seen = new Set<unknown>();
    let current: unknown = error;
    for (let depth = 0; depth < 5 && current instanceof Error && !seen.has(current); depth++) {
      seen.add(current);
      this.scrubFields(current);
      current = current.cause;
    }
    return error;
  }

  private scrubFields(error: Error): void {
    const record = error as unknown as Record<string, unknown>;
    const message = this.scrub(error.message);
    if (message !== error.message) replace(error, 'message', message);
    if (typeof error.stack === 'string') {
      const stack = this.scrub(error.stack);
      if (stack !== error.stack) replace(error, 'stack', stack);
    }
    for (const key of Object.keys(record)) {
      const value = record[key];
      let next: unknown = value;
      if (typeof value === 'string') next = this.scrub(value);
      else if (Array.isArray(value)) next = value.map((item: unknown) => (isPlain(item) ? this.scrubStrings(item) : item));
      else if (isPlain(value)) next = this.scrubStrings(value);
      if (next !== value) replace(error, key, next);
    }
  }

  /** A copy of a plain object (headers, an OData error detail) with its string values scrubbed. */
  private scrubStrings(value: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(value)) out[name] = typeof v === 'string' ? this.scrub(v) : v;
    return out;
  }

  /** Every form of every value, longest first, so a value containing another is replaced whole. */
  private allForms(): string[] {
    if (this.#forms === undefined) {
      const forms = new Set<string>();
      for (const value of [...this.#pinned, ...this.#recent]) for (const form of formsOf(value)) forms.add(form);
      this.#forms = [...forms].sort((a, b) => b.length - a.length);
    }
    return this.#forms;
  }
}

/**
 * Adds the values of credential headers (`names`) a request or a plugin set to the client's known secrets (kept among the
 * recent ones). A value shorter than 8 characters is a keyword (`x-csrf-token: Fetch`), not a credential:
 * registering it would blank that word out of every message.
 */
export function rememberCredentials(secrets: KnownSecrets, names: readonly string[], headers: Readonly<Record<string, string>>): void {
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined && value.length >= 8 && !secrets.has(value)) secrets.addCredential(value, true);
  }
}
