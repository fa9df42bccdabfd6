import { ConfigError } from '@sluice/core';
import { ODataVersionError } from '../errors.js';
import type { EntityTypeInfo, OperationInfo, ParameterInfo, ServiceMetadata } from '../metadata/model.js';
import type { ODataProtocol, } from '../protocol/types.js';
import type { OperationParam } from '../protocol/write.js';
import { namedLiteral, TypedValue } from '../query/literal.js';
import { encodeValue, type EncodeContext } from '../write/encode.js';
import { UnknownOperationError } from './errors.js';

/** An operation as it will be called: the name for the URL, the method, and parameter types when known. */
export interface ResolvedOperation {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  /** Declared parameters by name; undefined without `$metadata`. */
  readonly params: ReadonlyMap<string, ParameterInfo> | undefined;
  /** The declared return type (`Edm.Int64`, `Collection(…)`), when known. */
  readonly returnType?: string | undefined;
}

/** Where a bound operation is called: the binding entity type and whether it is a collection. */
export interface BindingInfo {
  readonly entityType: EntityTypeInfo | undefined;
  readonly collection: boolean;
}

const byName = (list: readonly ParameterInfo[]): Map<string, ParameterInfo> => new Map(list.map((p) => [p.name, p]));

function baseTypes(md: ServiceMetadata, type: EntityTypeInfo | undefined): Set<string> {
  const names = new Set<string>();
  for (let t = type; t !== undefined && !names.has(t.qualifiedName); t = t.baseType ? md.entityTypes.get(t.baseType) : undefined) names.add(t.qualifiedName);
  return names;
}

function list(names: Iterable<string>): string {
  const all = [...names];
  return all.length === 0 ? 'none' : all.slice(0, 12).join(', ') + (all.length > 12 ? ', …' : '');
}

/**
 * Finds the action or function `name` in the loaded `$metadata` (an import when unbound, an overload
 * bound to the binding type otherwise) and how to call it; without `$metadata` the name is used as
 * given. An operation the model does not declare is an {@link UnknownOperationError}.
 */
export function resolveOperation(
  md: ServiceMetadata | undefined, protocol: ODataProtocol, kind: 'action' | 'function', name: string, binding: BindingInfo | undefined,
): ResolvedOperation {
  const method = kind === 'action' ? 'POST' : 'GET';
  if (binding !== undefined && !protocol.write.boundOperations) {
    throw new ODataVersionError(`OData ${protocol.version} has no bound operations: call the function import with od.${kind}('${name}')`);
  }
  if (md === undefined) return { name, method, params: undefined };
  if (binding !== undefined) {
    const types = baseTypes(md, binding.entityType);
    const seen = new Set<readonly OperationInfo[]>();
    const candidates: OperationInfo[] = [];
    for (const overloads of md.operations.values()) {
      if (seen.has(overloads)) continue;
      seen.add(overloads);
      for (const op of overloads) {
        if (op.kind !== kind || !op.bound || op.bindingCollection !== binding.collection) continue;
        if (binding.entityType !== undefined && (op.bindingType === undefined || !types.has(op.bindingType))) continue;
        candidates.push(op);
      }
    }
    const op = candidates.find((o) => o.qualifiedName === name || o.name === name || (md.operations.get(name)?.includes(o) ?? false));
    if (op === undefined) {
      const on = `${binding.entityType?.qualifiedName ?? 'this type'}${binding.collection ? ' collections' : ''}`;
      throw new UnknownOperationError(`${kind} '${name}'`, `is not bound to ${on} in $metadata; bound ${kind}s there: ${list(candidates.map((c) => c.qualifiedName))}`);
    }
    return { name: op.qualifiedName, method, params: byName(op.parameters), returnType: op.returnType };
  }
  const imp = md.operationImports.get(name);
  if (imp === undefined) {
    const known = [...md.operationImports.values()].filter((i) => i.kind === kind || i.httpMethod !== undefined).map((i) => i.name);
    throw new UnknownOperationError(`${kind} '${name}'`, `is not declared in $metadata; ${kind} imports there: ${list(known)}`);
  }
  // v2 function imports say their HTTP method; v4 imports are actions (POST) or functions (GET).
  if (imp.httpMethod !== undefined) return { name, method: imp.httpMethod === 'GET' ? 'GET' : 'POST', params: byName(imp.parameters), returnType: imp.returnType };
  if (imp.kind !== kind) throw new UnknownOperationError(`${kind} '${name}'`, `is a ${imp.kind} import: call it with od.${imp.kind}()`);
  const op = md.operations.get(imp.operation ?? '')?.find((o) => !o.bound);
  return { name, method, params: op ? byName(op.parameters) : undefined, returnType: op?.returnType };
}

/** One parameter in both spellings, typed by `$metadata` when known; an undeclared name is a ConfigError. */
export function operationParam(
  name: string, value: unknown, resolved: ResolvedOperation, ctx: EncodeContext,
): OperationParam {
  const info = resolved.params?.get(name);
  if (resolved.params !== undefined && info === undefined) {
    throw new ConfigError(`parameter ${name}`, `is not a parameter of ${resolved.name}; its parameters: ${list(resolved.params.keys())}`);
  }
  const path = `parameter ${name}`;
  return {
    name,
    json: () => encodeValue(value, info?.type, info?.nullable ?? true, ctx, path),
    literal: () => {
      if (info?.type === 'Edm.String' && typeof value !== 'string' && !(value instanceof TypedValue) && value !== null) {
        throw new ConfigError(path, `expects Edm.String, got ${typeof value}`);
      }
      return ctx.protocol.formatLiteral(namedLiteral(value, info?.type, path));
    },
  };
}
