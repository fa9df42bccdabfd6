import type { Literal } from '../query/literal.js';
import type { DecodeContext } from './decode-context.js';

/** The JSON of the literals both versions write alike (null, booleans, Int32), else undefined. */
export function commonJson({ kind, text }: Literal): { json: unknown } | undefined {
  if (kind === 'null') return { json: null };
  if (kind === 'boolean') return { json: text === 'true' };
  if (kind === 'int32') return { json: Number(text) };
  return undefined;
}

/** One operation parameter, ready in both spellings the versions need. */
export interface OperationParam {
  readonly name: string;
  /** The value as JSON for a request body (v4 actions). */
  json(): unknown;
  /** The value as a URL literal, unescaped (`'O''Neil'`, `5L`, `datetime'…'`). */
  literal(): string;
}

/** The request an operation call turns into: path after the service root, query pairs, and a JSON body. */
export interface OperationRequest {
  readonly path: string;
  readonly query: readonly (readonly [string, string])[];
  readonly body: Record<string, unknown> | undefined;
}

/**
 * What differs between OData v2 and v4 when writing (ARCHITECTURE: "New version differences become
 * members of the protocol interface"): value spelling in bodies, the update method, `Prefer`, and how
 * actions and functions are called. Implemented in `v2/write.ts` and `v4/write.ts`.
 */
export interface WriteProtocol {
  /** A validated literal as JSON in a request body (v4 JSON Format section 7; v2 verbose JSON). */
  jsonValue(literal: Literal, ieee754: boolean): unknown;
  /** Headers of every modifying request: content type and version negotiation. */
  writeHeaders(largeNumbers: 'string' | 'number'): Record<string, string>;
  /**
   * Method and extra headers for `method` (`PATCH` meaning a partial update): v4 PATCH, v2 MERGE; with
   * `tunnel`, POST plus `X-HTTP-Method` for gateways and proxies that pass only GET and POST.
   */
  method(method: 'PATCH' | 'PUT' | 'DELETE', tunnel: boolean): { method: string; headers: Record<string, string> };
  /** The `Prefer` value for `return=minimal|representation`, or undefined where the version has none. */
  prefer(ret: 'minimal' | 'representation'): string | undefined;
  /** A function call: v4 `Name(P='x')` (or `Name(P=@P)?@P='x'` with aliases), v2 `Name?P='x'`. */
  functionCall(name: string, params: readonly OperationParam[], aliases: boolean): OperationRequest;
  /** An action call: v4 POST with parameters as a JSON body, v2 function import with literal query options. */
  actionCall(name: string, params: readonly OperationParam[]): OperationRequest;
  /** Whether operations can be bound to an entity or collection (v4). */
  readonly boundOperations: boolean;
  /**
   * The result of a function or action from its response body; `returnType` as `$metadata` declares it, when loaded.
   * With `decode` (its `entityType` the return type's, or its collection's, entity type), entities are decoded as reads decode them.
   */
  operationResult(body: unknown, name: string, returnType?: string, decode?: DecodeContext): unknown;
}
