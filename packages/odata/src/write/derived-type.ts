import { ConfigError } from '@sluice/core';
import type { EntityTypeInfo, ServiceMetadata } from '../metadata/model.js';

/** A type an entity to write names: the name, and the key it was given under (for errors). */
export interface NamedType {
  readonly name: string;
  readonly at: string;
}

/**
 * The type an entity to write names (OData JSON format, "Control Information: type"): `@odata.type`
 * (`#S.SpecialOrder`, `#Alias.SpecialOrder`, or a `$metadata` URL ending in `#S.SpecialOrder`), or on v2
 * `__metadata.type` (`S.SpecialOrder`). Undefined when it names none; a ConfigError when it is no string.
 */
export function namedType(entity: Record<string, unknown>, path: string, v2: boolean): NamedType | undefined {
  const annotated = entity['@odata.type'];
  if (annotated !== undefined) {
    const at = `${path}.@odata.type`;
    if (typeof annotated !== 'string') throw new ConfigError(at, 'must be a type name such as "#Namespace.Type"');
    return { name: annotated.slice(annotated.lastIndexOf('#') + 1), at };
  }
  const verbose = v2 ? entity['__metadata'] : undefined;
  const type = typeof verbose === 'object' && verbose !== null ? (verbose as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? { name: type, at: `${path}.__metadata.type` } : undefined;
}

/**
 * The entity type `named` names, which must be `base` or derive from it (`BaseType`, any depth): an
 * instance of a derived type may be written to an entity set or navigation of its base type. A name
 * `$metadata` does not declare as an entity type, or an unrelated type, is a ConfigError naming it.
 */
export function derivedType(md: ServiceMetadata, base: EntityTypeInfo, named: NamedType): EntityTypeInfo {
  const found = md.entityTypes.get(named.name);
  if (found === undefined) throw new ConfigError(named.at, `names ${named.name}, which $metadata does not declare as an entity type`);
  const seen = new Set<string>();
  for (let t: EntityTypeInfo | undefined = found; t !== undefined && !seen.has(t.qualifiedName); t = t.baseType ? md.entityTypes.get(t.baseType) : undefined) {
    if (t.qualifiedName === base.qualifiedName) return found;
    seen.add(t.qualifiedName);
  }
  throw new ConfigError(named.at, `names ${found.qualifiedName}, which does not derive from ${base.qualifiedName}`);
}
