// Reading one JSON answer that is not a collection page (an entity, a write's or an operation's answer, a
// delta page, an async operation's result or status): no body for 202/204 or empty text, a JSON content type
// required, the text parsed through the client's precision guard, and a typed error naming the request.
import { DecodeError, describeRequest, type SluiceResponse } from '@sluice/core';
import { ODataFormatError } from '../errors.js';
import type { EntityTypeInfo } from '../metadata/model.js';
import type { ODataVersion } from '../protocol/types.js';
import type { PrecisionGuard } from './precision.js';

const JSON_TYPE = /(^|\/|\+)json\b/i;

/** How a JSON body's text is parsed (the client's precision guard: exact Int64/Decimal), given its content type. @internal */
export type BodyParser = (text: string, contentType: string | null) => unknown;

/**
 * The error class an answer that is no JSON (a content type other than JSON, text `JSON.parse` refuses)
 * becomes, as the public API reading it documents: `DecodeError` for `get()` and delta pages (what core's
 * `response.json()` gives: the request, the status, an excerpt), `ODataFormatError` for writes, operations
 * and async results. @internal
 */
export type AnswerError = 'DecodeError' | 'ODataFormatError';

/** How one answer is read. @internal */
export interface AnswerReading {
  /** How the text is parsed (default `JSON.parse`): see {@link guardParser}. */
  readonly parse?: BodyParser | undefined;
  readonly error: AnswerError;
}

/**
 * A parser through the client's precision guard ({@link PrecisionGuard.parseBody}): the declared Int64/Decimal
 * properties (`names`, default those of `type`) of the entity (`shape: 'entity'`) or of the records of its
 * `value` (`'collection'`) exact, as reads are; undefined (plain `JSON.parse`) without a guard. @internal
 */
export function guardParser(guard: PrecisionGuard | undefined, version: ODataVersion, type: EntityTypeInfo | undefined, shape: 'entity' | 'collection' = 'entity', names?: ReadonlySet<string>): BodyParser | undefined {
  return guard === undefined ? undefined : (text, contentType) => guard.parseBody(text, contentType, version, type, shape, names);
}

/**
 * The JSON body of a successful answer, or undefined when it has none (202, 204, empty text). A content
 * type other than JSON, or text that is no JSON, is the error `how.error` names, without the client's
 * known secrets (`JSON.parse` quotes the body where it stopped). @internal
 */
export async function readJsonAnswer(response: SluiceResponse, how: AnswerReading): Promise<unknown> {
  if (response.status === 204 || response.status === 202) {
    await response.cancel();
    return undefined;
  }
  const text = await response.text();
  return parseJsonText(text, response.headers.get('content-type'), how.parse, (problem, cause) => fault(response, how.error, problem, text, cause));
}

/** Why a JSON body was refused: its content type, or text `JSON.parse` (or the guard) refused (`cause`). @internal */
export type JsonProblem = { kind: 'content-type'; type: string } | { kind: 'syntax'; cause: unknown };

/**
 * The JSON value of a body's text and content type (undefined when the text is empty), parsed by `parse`
 * (default `JSON.parse`); a content type other than JSON or text that is no JSON is the error `fail` makes.
 * Also for a body that came without a response of its own (the final response a monitor embedded). @internal
 */
export function parseJsonText(text: string, type: string | null, parse: BodyParser | undefined, fail: (problem: JsonProblem, cause?: unknown) => Error): unknown {
  if (text.trim() === '') return undefined;
  if (type !== null && !JSON_TYPE.test(type)) throw fail({ kind: 'content-type', type });
  try {
    return parse === undefined ? JSON.parse(text) : parse(text, type);
  } catch (cause) {
    throw fail({ kind: 'syntax', cause }, cause);
  }
}

function fault(response: SluiceResponse, kind: AnswerError, problem: JsonProblem, text: string, cause?: unknown): Error {
  const options = cause === undefined ? undefined : { cause };
  const what = problem.kind === 'content-type' ? `expected a JSON response, got content-type ${problem.type}`
    : kind === 'DecodeError' ? `response is not valid JSON: ${(problem.cause as Error).message}` : 'answered invalid JSON';
  const error = kind === 'ODataFormatError'
    ? new ODataFormatError(`${response.method} ${what}`, response.status, options)
    : new DecodeError(`${describeRequest(response.method, response.url)}: ${what}`, response.status, text, options);
  return response.secrets?.scrubError(error) ?? error;
}
