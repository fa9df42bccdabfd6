import { CodegenError } from './errors.js';
import type { CgModel } from './model.js';
import { elementOf, lineage } from './validate.js';

/** What a generated file holds: types and operations by qualified name, container members by name. */
export interface Selection {
  types: Set<string>;
  operations: Set<string>;
  /** Entity sets, singletons and operation imports. */
  sets: Set<string>;
}

/**
 * Everything, or (with `only`) the named entity sets, singletons and operation imports and what they
 * reference: their entity types with base types, the types of properties, parameters and results, the
 * entity types navigation leads to (transitively), and the operations bound to included types.
 */
export function select(model: CgModel, document: string, only?: readonly string[]): Selection {
  const members = [...model.entitySets, ...model.singletons, ...model.imports];
  if (only === undefined) {
    return { types: new Set(model.types.keys()), operations: new Set(model.operations.keys()), sets: new Set(members.map((m) => m.name)) };
  }
  const sel: Selection = { types: new Set(), operations: new Set(), sets: new Set() };
  const pending: string[] = [];
  const addType = (type: string): void => {
    const el = elementOf(type).type;
    if (el.startsWith('Edm.') || sel.types.has(el)) return;
    sel.types.add(el);
    pending.push(el);
  };
  const addOperation = (qname: string): void => {
    if (sel.operations.has(qname)) return;
    sel.operations.add(qname);
    for (const op of model.operations.get(qname) ?? []) {
      for (const p of op.params) addType(p.type);
      if (op.returns) addType(op.returns.type);
    }
  };
  for (const name of only) {
    const set = [...model.entitySets, ...model.singletons].find((s) => s.name === name);
    const imp = model.imports.find((i) => i.name === name);
    if (set === undefined && imp === undefined) {
      throw new CodegenError(document, `--only names ${name}, which is no entity set, singleton or operation import of the service (it has ${members.slice(0, 8).map((m) => m.name).join(', ')}${members.length > 8 ? ', ...' : ''})`);
    }
    sel.sets.add(name);
    if (set) addType(set.type);
    if (imp?.operation) addOperation(imp.operation);
    for (const p of imp?.params ?? []) addType(p.type);
    if (imp?.returns) addType(imp.returns.type);
  }
  const boundTo = new Map<string, string[]>();
  for (const [qname, overloads] of model.operations) {
    for (const o of overloads) if (o.bound && o.bindingType !== undefined) boundTo.set(o.bindingType, [...(boundTo.get(o.bindingType) ?? []), qname]);
  }
  while (pending.length > 0) {
    const t = model.types.get(pending.pop()!);
    if (t === undefined) continue;
    if (t.kind === 'typedef') continue;
    if (t.kind === 'enum') continue;
    for (const c of lineage(model, t)) {
      addType(c.qname);
      for (const p of c.properties) addType(p.type);
      for (const n of c.navigation) addType(n.type);
    }
    for (const qname of boundTo.get(t.qname) ?? []) addOperation(qname);
  }
  return sel;
}
