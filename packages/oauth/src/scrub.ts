/** What replaces a secret in text built from an authorization server's answer. */
export const SCRUBBED = '[REDACTED]';
/** Values shorter than this are only replaced where they stand alone, so `s` does not eat every letter s. */
const SHORT = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The secret values of one token request (client secret, Basic credentials, client assertion, code,
 * code verifier, refresh token). Some identity providers echo what they received in
 * `error_description` or `error_uri`; everything built from their answer is passed through
 * {@link Secrets.scrub} before it reaches an error, an event or a log.
 */
export class Secrets {
  private readonly forms: string[] = [];

  /** Adds values the client sends; empty or undefined ones are ignored. */
  add(...values: (string | undefined)[]): this {
    for (const value of values) {
      if (value === undefined || value === '') continue;
      // The server may echo the value as received, decoded, or re-encoded for a URL or a form.
      for (const form of [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]) {
        if (!this.forms.includes(form)) this.forms.push(form);
      }
    }
    // Longest first, so a value containing another is replaced whole.
    this.forms.sort((a, b) => b.length - a.length);
    return this;
  }

  /** `text` with every occurrence of every secret replaced by `[REDACTED]`. */
  scrub(text: string): string;
  scrub(text: string | undefined): string | undefined;
  scrub(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    let out = text;
    for (const form of this.forms) {
      if (!out.includes(form)) continue;
      if (form.length >= SHORT) out = out.split(form).join(SCRUBBED);
      // A short value counts where no other token character touches it (RFC 3986 unreserved).
      else out = out.replace(new RegExp(`(?<![A-Za-z0-9._~-])${escapeRegExp(form)}(?![A-Za-z0-9._~-])`, 'g'), SCRUBBED);
    }
    return out;
  }
}
