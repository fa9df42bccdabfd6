import { ConfigError } from '@sluice/core';

// OData 4.01 ABNF: searchExpr binds NOT tighter than AND, and AND tighter than OR.
const OR = 1;
const AND = 2;
const ATOM = 3;

/** Characters a searchWord may hold once percent-encoded; anything else makes the term a phrase. */
const WORD = /^[^\s"'();&#\\]+(?:'[^\s"();&#\\]*)*$/u;
const OPERATORS = new Set(['AND', 'OR', 'NOT']);

/** A `$search` expression built with {@link SearchBuilder}; `text` is its `$search` value (not yet URL-encoded). */
export class SearchExpr {
  /** @internal */
  constructor(readonly text: string, readonly precedence: number) {}
}

/** A term: a word or a phrase (plain strings), or an expression already built. */
export type SearchTerm = string | SearchExpr;

function phraseOf(text: string): SearchExpr {
  if (typeof text !== 'string' || text.trim() === '') throw new ConfigError('search', 'a phrase must be a non-empty string');
  // OData ABNF searchPhrase (qchar-no-AMP-DQUOTE / SP): a double quote cannot be escaped inside it.
  if (text.includes('"')) throw new ConfigError('search', `cannot search for a double quote (OData search phrases have no escape for it): ${JSON.stringify(text)}`);
  return new SearchExpr(`"${text}"`, ATOM);
}

function term(value: SearchTerm): SearchExpr {
  if (value instanceof SearchExpr) return value;
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError('search', 'a term must be a non-empty string or a search expression');
  // A lone word stays a searchWord; anything a word cannot hold (spaces, parentheses, AND/OR/NOT) is a phrase.
  return WORD.test(value) && !OPERATORS.has(value) ? new SearchExpr(value, ATOM) : phraseOf(value);
}

function join(op: string, prec: number, terms: readonly SearchTerm[]): SearchExpr {
  if (terms.length === 0) throw new ConfigError('search', `${op} needs at least one term`);
  const parts = terms.map(term);
  if (parts.length === 1) return parts[0]!;
  return new SearchExpr(parts.map((p) => (p.precedence < prec ? `(${p.text})` : p.text)).join(` ${op} `), prec);
}

/**
 * Builds an OData `$search` expression (OData 4.01 Part 2 section 5.1.7): words, phrases, `AND`, `OR`,
 * `NOT` and grouping, written as the ABNF requires. A plain string is a word when it can be one, and a
 * phrase otherwise (a double quote cannot be searched for: ConfigError).
 *
 * @example
 * ```ts
 * od.from('Products').search((s) => s.and('blue', s.or('car', 'bike'), s.not(s.phrase('red roof'))))
 * // $search=blue AND (car OR bike) AND NOT "red roof"
 * ```
 */
export class SearchBuilder {
  /** A word (`blue`) or, if the text cannot be a word, a phrase. */
  term(text: string): SearchExpr {
    return term(text);
  }

  /** A phrase in double quotes: matches the words in this order. */
  phrase(text: string): SearchExpr {
    return phraseOf(text);
  }

  /** All terms must match. */
  and(...terms: SearchTerm[]): SearchExpr {
    return join('AND', AND, terms);
  }

  /** Any term may match. */
  or(...terms: SearchTerm[]): SearchExpr {
    return join('OR', OR, terms);
  }

  /** The term must not match. */
  not(value: SearchTerm): SearchExpr {
    const inner = term(value);
    return new SearchExpr(`NOT ${inner.precedence < ATOM ? `(${inner.text})` : inner.text}`, ATOM);
  }
}

/** Builds the `$search` value of `query.search(...)`: a string is one phrase, as before; a callback uses the builder. @internal */
export function toSearch(input: string | SearchExpr | ((s: SearchBuilder) => SearchExpr)): string | SearchExpr {
  if (typeof input === 'function') {
    const expr = input(new SearchBuilder());
    if (!(expr instanceof SearchExpr)) throw new ConfigError('search', 'the builder callback must return a search expression');
    return expr;
  }
  if (input instanceof SearchExpr) return input;
  phraseOf(input);
  return input;
}
