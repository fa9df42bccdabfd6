/** One structural property of an entity type, as `$metadata` declares it. */
export interface PropertyInfo {
  name: string;
  /** Qualified type such as `Edm.Int32`, `Collection(Edm.String)` or `Demo.Address`. */
  type: string;
  nullable: boolean;
  precision?: number | undefined;
  scale?: number | undefined;
  maxLength?: number | undefined;
  /** v2 `ConcurrencyMode="Fixed"`: the property takes part in the entity's ETag. */
  concurrency?: boolean | undefined;
  /** SAP `sap:display-format` (`Date` on an `Edm.DateTime`: a calendar date, read as `YYYY-MM-DD`). */
  displayFormat?: string | undefined;
}

/** One navigation property: its name, target type (qualified) and whether it leads to many. */
export interface NavigationInfo {
  name: string;
  /** Qualified name of the target entity type, when known. */
  type: string | undefined;
  collection: boolean;
  /** v4 `Partner`: the navigation property that leads back. */
  partner?: string | undefined;
  /** v4 `ContainsTarget`: the targets are contained entities with no entity set of their own. */
  containsTarget?: boolean | undefined;
}

/** An entity type: qualified name, key property names and properties by name. */
export interface EntityTypeInfo {
  name: string;
  qualifiedName: string;
  key: readonly string[];
  properties: ReadonlyMap<string, PropertyInfo>;
  navigation: ReadonlyMap<string, NavigationInfo>;
  /** Qualified name of the base type, when derived. */
  baseType?: string | undefined;
  /** Media entity (`HasStream`). */
  hasStream?: boolean | undefined;
}

/** A complex type: qualified name and properties by name. */
export interface ComplexTypeInfo {
  name: string;
  qualifiedName: string;
  properties: ReadonlyMap<string, PropertyInfo>;
}

/** An entity set and the entity type of its members. */
export interface EntitySetInfo {
  name: string;
  entityType: EntityTypeInfo | undefined;
  /** Navigation property path to the entity set its targets live in (`NavigationPropertyBinding`). */
  navigationBindings: ReadonlyMap<string, string>;
  /**
   * Properties whose values make the ETag: v4 `Core.OptimisticConcurrency` on the set, or the v2
   * properties with `ConcurrencyMode="Fixed"`. Non-empty means the service checks `If-Match` on writes.
   */
  concurrency: readonly string[];
}

/** One parameter of an action, function or v2 function import. */
export interface ParameterInfo {
  name: string;
  /** Qualified type, `Collection(...)` for collections. */
  type: string;
  nullable: boolean;
}

/** An action or function (one overload), as a v4 schema declares it. */
export interface OperationInfo {
  kind: 'action' | 'function';
  name: string;
  qualifiedName: string;
  /** Bound operations are called on an entity or a collection, given by the first parameter. */
  bound: boolean;
  /** Type of the binding parameter (element type for a collection), when bound. */
  bindingType?: string | undefined;
  bindingCollection: boolean;
  /** Parameters after the binding parameter. */
  parameters: readonly ParameterInfo[];
  /** Return type, `Collection(...)` for collections; undefined for none. */
  returnType?: string | undefined;
  composable: boolean;
}

/**
 * An action import or function import of the entity container: how an unbound operation is called.
 * v2 function imports carry their parameters and HTTP method (`m:HttpMethod`) themselves.
 */
export interface OperationImportInfo {
  kind: 'action' | 'function';
  name: string;
  /** Qualified name of the imported v4 operation; undefined for v2 function imports. */
  operation: string | undefined;
  /** Entity set of the returned entities, when declared. */
  entitySet?: string | undefined;
  /** v2: the HTTP method the function import is called with (`GET` unless declared). */
  httpMethod?: string | undefined;
  /** v2: parameters declared on the import; empty for v4 (see the operation). */
  parameters: readonly ParameterInfo[];
  /** v2: the return type declared on the import. */
  returnType?: string | undefined;
}

/**
 * What sluice keeps of a service's `$metadata`: the OData version it declares, and its entity sets and
 * types (keys, property types, navigation). Fetched once per client with `od.metadata()` and cached.
 *
 * @example
 * ```ts
 * const md = await od.metadata()
 * md.entitySets.get('Products')?.entityType?.key // ['ID']
 * ```
 */
export interface ServiceMetadata {
  /** `'4.0'` / `'4.01'` or `'2.0'` (`'1.0'`, `'3.0'`) as declared by the document. */
  version: string | undefined;
  entitySets: ReadonlyMap<string, EntitySetInfo>;
  /** Entity types by qualified name (and by alias-qualified name). */
  entityTypes: ReadonlyMap<string, EntityTypeInfo>;
  /** Complex types by qualified name (and by alias-qualified name). */
  complexTypes: ReadonlyMap<string, ComplexTypeInfo>;
  /** Actions and functions (all overloads) by qualified name (and by alias-qualified name). */
  operations: ReadonlyMap<string, readonly OperationInfo[]>;
  /** Action imports, function imports and v2 function imports by name. */
  operationImports: ReadonlyMap<string, OperationImportInfo>;
}

/** Property type of `path` (`Name` or `Category/Name`) starting at `type`, following navigation. */
export function propertyType(md: ServiceMetadata, type: EntityTypeInfo | undefined, path: string): string | undefined {
  let current = type;
  const parts = path.split('/');
  for (let i = 0; i < parts.length && current; i++) {
    const part = parts[i]!;
    const prop = current.properties.get(part);
    if (prop) return i === parts.length - 1 ? prop.type : undefined;
    const nav = current.navigation.get(part);
    current = nav?.type ? md.entityTypes.get(nav.type) : undefined;
  }
  return undefined;
}
