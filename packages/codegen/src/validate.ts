import { edmPrimitive } from '@sluice/odata';
import { CodegenError } from './errors.js';
import type { CgModel, CgStructured, SourcePlace } from './model.js';

const COLLECTION = /^Collection\((.+)\)$/;
/** CSDL's abstract and path types: allowed where vocabularies use them; values of them are read as they come. */
export const NON_VALUE_TYPES = new Set([
  'Edm.EntityType', 'Edm.ComplexType', 'Edm.AnnotationPath', 'Edm.PropertyPath', 'Edm.NavigationPropertyPath', 'Edm.AnyPropertyPath', 'Edm.ModelElementPath',
]);

/** The element type of `Collection(X)`, or the type itself. */
export function elementOf(type: string): { type: string; many: boolean } {
  const m = COLLECTION.exec(type);
  return m ? { type: m[1]!, many: true } : { type, many: false };
}

/**
 * Checks every reference of the model: EDM primitive types exist, every other type is declared (an
 * unknown or dangling one is an error naming the element), base types lead nowhere circular, keys name
 * properties, navigation leads to entity types, imports name declared operations.
 */
export function validate(model: CgModel, document: string): void {
  const fail = (reason: string, place: SourcePlace): never => {
    throw new CodegenError(document, reason, place);
  };
  const checkType = (type: string, place: SourcePlace, what: string): void => {
    const el = elementOf(type).type;
    if (el.startsWith('Edm.')) {
      if (edmPrimitive(el) === undefined && !NON_VALUE_TYPES.has(el)) fail(`unknown EDM type ${el} (${what})`, place);
      return;
    }
    if (!model.types.has(el)) fail(`${what} has the type ${el}, which no schema declares`, place);
  };
  const structured = (qname: string): CgStructured | undefined => {
    const t = model.types.get(qname);
    return t?.kind === 'entity' || t?.kind === 'complex' ? t : undefined;
  };
  for (const t of model.types.values()) {
    if (t.kind === 'enum' || t.kind === 'typedef') {
      if (t.kind === 'typedef') checkType(t.underlying, t.place, `type definition ${t.qname}`);
      continue;
    }
    if (t.baseType !== undefined) {
      const base = structured(t.baseType);
      if (base === undefined || base.kind !== t.kind) fail(`the base type ${t.baseType} of ${t.qname} is not a declared ${t.kind === 'entity' ? 'entity' : 'complex'} type`, t.place);
      const seen = new Set([t.qname]);
      for (let b = base; b?.baseType !== undefined; b = structured(b.baseType)) {
        if (seen.has(b.qname)) fail(`the base types of ${t.qname} go round in a circle`, t.place);
        seen.add(b.qname);
      }
    }
    for (const p of t.properties) checkType(p.type, p.place, `property ${t.qname}/${p.name}`);
    for (const n of t.navigation) {
      const target = model.types.get(n.type);
      if (target?.kind !== 'entity') fail(`navigation property ${t.qname}/${n.name} leads to ${n.type}, which is no declared entity type`, n.place);
    }
    const all = new Set(allProperties(model, t).map((p) => p.name));
    // A v4 key may be a path into a complex property (`Address/City`): its first segment must be a property.
    for (const k of t.key) if (!all.has(k.split('/')[0]!)) fail(`the key of ${t.qname} names ${k}, which is no property of it`, t.place);
  }
  for (const overloads of model.operations.values()) {
    for (const op of overloads) {
      if (op.bindingType !== undefined) checkType(op.bindingType, op.place, `the binding parameter of ${op.qname}`);
      for (const p of op.params) checkType(p.type, op.place, `parameter ${p.name} of ${op.qname}`);
      if (op.returns) checkType(op.returns.type, op.place, `the return type of ${op.qname}`);
    }
  }
  for (const s of [...model.entitySets, ...model.singletons]) {
    if (model.types.get(s.type)?.kind !== 'entity') fail(`${s.name} has the entity type ${s.type}, which no schema declares`, s.place);
  }
  for (const imp of model.imports) {
    if (imp.operation !== undefined) {
      const ops = model.operations.get(imp.operation)?.filter((o) => !o.bound && o.kind === imp.kind);
      if (!ops?.length) fail(`${imp.name} imports the ${imp.kind} ${imp.operation}, which no schema declares unbound`, imp.place);
    }
    for (const p of imp.params) checkType(p.type, imp.place, `parameter ${p.name} of ${imp.name}`);
    if (imp.returns) checkType(imp.returns.type, imp.place, `the return type of ${imp.name}`);
  }
}

/** The type and its base types, most derived first. */
export function lineage(model: CgModel, t: CgStructured): CgStructured[] {
  const out: CgStructured[] = [];
  for (let c: CgStructured | undefined = t; c !== undefined && !out.includes(c); ) {
    out.push(c);
    const b: CgModel['types'] extends Map<string, infer T> ? T | undefined : never = c.baseType === undefined ? undefined : model.types.get(c.baseType);
    c = b?.kind === 'entity' || b?.kind === 'complex' ? b : undefined;
  }
  return out;
}

/** Properties of the type with those it inherits, base first. */
export function allProperties(model: CgModel, t: CgStructured): CgStructured['properties'] {
  return lineage(model, t).reverse().flatMap((c) => c.properties);
}

/** Navigation properties of the type with those it inherits, base first. */
export function allNavigation(model: CgModel, t: CgStructured): CgStructured['navigation'] {
  return lineage(model, t).reverse().flatMap((c) => c.navigation);
}

/** The key of the type: its own, or the nearest base type's. */
export function keyOf(model: CgModel, t: CgStructured): string[] {
  return lineage(model, t).find((c) => c.key.length > 0)?.key ?? [];
}
