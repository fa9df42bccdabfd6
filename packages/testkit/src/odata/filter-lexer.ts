// Tokenizer for OData common expressions ($filter, $orderby items): OData v4.01 URL Conventions
// section 5.1.1 and its ABNF; v2 typed literals (datetime'…', guid'…', 12.5M, 5L) per MS-ODATA 2.2.2.
import { badRequest } from './errors.js';
import type { ODataVersion } from './model.js';

/** Kinds of token the expression parser consumes. */
export type TokenKind =
  | 'ident' | 'string' | 'number' | 'date' | 'datetime' | 'guid' | 'open' | 'close' | 'comma' | 'slash'
  | 'colon' | 'minus' | 'end';

/** One token; `text` is the identifier, the unescaped string, or the literal's text. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** v2 numeric suffix (`L`, `M`, `D`, `F`) or typed-literal prefix (`datetime`, `guid`, …). */
  readonly tag?: string;
  readonly pos: number;
}

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w-])/;
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,12})?)?(?:Z|[+-]\d{2}:\d{2})/i;
const DATE = /^\d{4}-\d{2}-\d{2}(?![\w:])/;
const NUMBER = /^-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|INF|NaN)/;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_.]*/;
const TYPED_PREFIXES = new Set(['datetime', 'datetimeoffset', 'guid', 'time', 'duration', 'binary', 'x']);

/** Splits an expression into tokens; throws a 400 ODataServerError on text that is no token. */
export function tokenize(src: string, version: ODataVersion, option: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === ' ' || c === '\t') { i++; continue; }
    const rest = src.slice(i);
    const single: Record<string, TokenKind> = { '(': 'open', ')': 'close', ',': 'comma', '/': 'slash', ':': 'colon' };
    const kind = single[c];
    if (kind) { tokens.push({ kind, text: c, pos: i }); i++; continue; }
    if (c === "'") {
      const [text, next] = readString(src, i, option);
      tokens.push({ kind: 'string', text, pos: i });
      i = next;
      continue;
    }
    if (version === 4) {
      const guid = GUID.exec(rest);
      if (guid) { tokens.push({ kind: 'guid', text: guid[0].toLowerCase(), pos: i }); i += guid[0].length; continue; }
      const dt = DATETIME.exec(rest);
      if (dt) { tokens.push({ kind: 'datetime', text: dt[0], pos: i }); i += dt[0].length; continue; }
      const d = DATE.exec(rest);
      if (d) { tokens.push({ kind: 'date', text: d[0], pos: i }); i += d[0].length; continue; }
    }
    const num = /^[-\d]/.test(c) ? NUMBER.exec(rest) : null;
    if (num) {
      i += num[0].length;
      let tag: string | undefined;
      // v2 type suffixes: 5L Int64, 1.5M Decimal, 1.5D Double, 1.5F Single (MS-ODATA 2.2.2)
      if (version === 2 && /^[LMDFlmdf](?![\w])/.test(src.slice(i))) { tag = (src[i] as string).toUpperCase(); i++; }
      tokens.push({ kind: 'number', text: num[0], pos: i - num[0].length, ...(tag ? { tag } : {}) });
      continue;
    }
    if (c === '-') { tokens.push({ kind: 'minus', text: c, pos: i }); i++; continue; }
    const id = IDENT.exec(rest);
    if (id) {
      const word = id[0];
      i += word.length;
      if (src[i] === "'" && TYPED_PREFIXES.has(word.toLowerCase())) {
        const [text, next] = readString(src, i, option);
        const tag = word.toLowerCase();
        if (tag === 'guid' && !GUID.test(text)) throw badRequest(`Invalid guid literal '${text}'`, option);
        const kindOf: TokenKind = tag === 'guid' ? 'guid' : tag === 'datetime' || tag === 'datetimeoffset' ? 'datetime' : 'string';
        tokens.push({ kind: kindOf, text: tag === 'guid' ? text.toLowerCase() : text, tag, pos: i - word.length });
        i = next;
        continue;
      }
      tokens.push({ kind: 'ident', text: word, pos: i - word.length });
      continue;
    }
    throw badRequest(`Syntax error at position ${i} in ${option}: unexpected '${c}'`, option);
  }
  tokens.push({ kind: 'end', text: '', pos: src.length });
  return tokens;
}

/** Reads a single-quoted literal starting at `start`; two quotes stand for one (URL Conventions 5.1.1.6.1). */
function readString(src: string, start: number, option: string): [string, number] {
  let out = '';
  let i = start + 1;
  for (;;) {
    const j = src.indexOf("'", i);
    if (j < 0) throw badRequest(`Unterminated string literal at position ${start} in ${option}`, option);
    out += src.slice(i, j);
    if (src[j + 1] === "'") { out += "'"; i = j + 2; continue; }
    return [out, j + 1];
  }
}
