import { Annotations, TERMS } from './annotations.js';
import { CodegenError } from './errors.js';
import type { CgEnum, CgModel, CgOperation, CgParameter, CgProperty, CgStructured, SourcePlace } from './model.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const at = (element: string): SourcePlace => ({ element });

/** Reads a CSDL JSON document (OData 4.01 JSON CSDL, also served by 4.0 services) into the generator's model. */
export function readCsdlJsonModel(text: string, document: string): CgModel {
  let doc: Json | undefined;
  try {
    doc = obj(JSON.parse(text));
  } catch (error) {
    throw new CodegenError(document, `not valid JSON: ${(error as Error).message}`, undefined, { cause: error });
  }
  const version = str(doc?.['$Version']);
  if (doc === undefined || version === undefined) throw new CodegenError(document, 'not a CSDL JSON document: no $Version');
  const aliases = new Map<string, string>();
  for (const ref of Object.values(obj(doc['$Reference']) ?? {})) {
    for (const inc of (obj(ref)?.['$Include'] as unknown[] | undefined) ?? []) {
      const i = obj(inc);
      if (str(i?.['$Alias']) && str(i?.['$Namespace'])) aliases.set(str(i!['$Alias'])!, str(i!['$Namespace'])!);
    }
  }
  const schemas = Object.entries(doc).filter(([k, v]) => !k.startsWith('$') && obj(v) !== undefined) as Array<[string, Json]>;
  for (const [ns, s] of schemas) if (str(s['$Alias'])) aliases.set(str(s['$Alias'])!, ns);
  const qualify = (name: string): string => {
    const dot = name.lastIndexOf('.');
    const ns = dot < 0 ? undefined : aliases.get(name.slice(0, dot));
    return ns === undefined ? name : `${ns}.${name.slice(dot + 1)}`;
  };
  const ann = new Annotations(qualify);
  const annotate = (target: string, o: Json, prefix = ''): void => {
    for (const [k, v] of Object.entries(o)) if (k.startsWith(`${prefix}@`)) ann.addJson(target, k.slice(prefix.length + 1), v);
  };
  for (const [, s] of schemas) {
    for (const [target, group] of Object.entries(obj(s['$Annotations']) ?? {})) {
      const slash = target.indexOf('/');
      annotate(slash < 0 ? qualify(target) : qualify(target.slice(0, slash)) + target.slice(slash), obj(group) ?? {});
    }
  }
  const typeOf = (o: Json, fallback = 'Edm.String'): string => {
    const t = qualify(str(o['$Type']) ?? fallback);
    return o['$Collection'] === true ? `Collection(${t})` : t;
  };
  const param = (p: unknown): CgParameter => {
    const o = obj(p) ?? {};
    return { name: str(o['$Name']) ?? '', type: typeOf(o), nullable: o['$Nullable'] === true };
  };
  const model: CgModel = { version: '4.0', declaredVersion: version, types: new Map(), operations: new Map(), entitySets: [], singletons: [], imports: [] };
  for (const [ns, schema] of schemas) {
    for (const [name, value] of Object.entries(schema)) {
      if (name.startsWith('$') || name.includes('@')) continue;
      const qname = `${ns}.${name}`;
      if (Array.isArray(value)) {
        for (const o of value.map(obj)) {
          if (o === undefined) continue;
          const params = ((o['$Parameter'] as unknown[] | undefined) ?? []).map(param);
          const bound = o['$IsBound'] === true;
          const ret = obj(o['$ReturnType']);
          const op: CgOperation = {
            kind: o['$Kind'] === 'Action' ? 'action' : 'function', name, qname, bound, bindingCollection: false,
            params: bound ? params.slice(1) : params, returns: ret ? { type: typeOf(ret), nullable: ret['$Nullable'] === true } : undefined,
            doc: ann.doc(qname), place: at(`${str(o['$Kind']) ?? 'operation'} ${qname}`),
          };
          if (bound) {
            const b = ((o['$Parameter'] as unknown[] | undefined) ?? [])[0];
            op.bindingType = qualify(str(obj(b)?.['$Type']) ?? '');
            op.bindingCollection = obj(b)?.['$Collection'] === true;
          }
          model.operations.set(qname, [...(model.operations.get(qname) ?? []), op]);
        }
        continue;
      }
      const o = obj(value);
      if (o === undefined) continue;
      annotate(qname, o);
      const kind = str(o['$Kind']);
      const place = at(`${kind ?? 'element'} ${qname}`);
      if (kind === 'EntityType' || kind === 'ComplexType') {
        const t: CgStructured = {
          kind: kind === 'EntityType' ? 'entity' : 'complex', name, namespace: ns, qname,
          baseType: str(o['$BaseType']) === undefined ? undefined : qualify(str(o['$BaseType'])!),
          abstract: o['$Abstract'] === true, open: o['$OpenType'] === true, hasStream: o['$HasStream'] === true,
          key: ((o['$Key'] as unknown[] | undefined) ?? []).map((k) => (typeof k === 'string' ? k : Object.values(obj(k) ?? {})[0] as string)),
          properties: [], navigation: [], doc: ann.doc(qname), place,
        };
        for (const [pname, pv] of Object.entries(o)) {
          const p = obj(pv);
          if (pname.startsWith('$') || pname.includes('@') || p === undefined) continue;
          const target = `${qname}/${pname}`;
          annotate(target, p);
          annotate(target, o, pname);
          if (p['$Kind'] === 'NavigationProperty') {
            t.navigation.push({ name: pname, type: qualify(str(p['$Type']) ?? ''), many: p['$Collection'] === true, doc: ann.doc(target), place: at(`NavigationProperty ${target}`) });
          } else {
            const prop: CgProperty = {
              name: pname, type: typeOf(p), nullable: p['$Nullable'] === true, computed: ann.is(target, TERMS.computed), immutable: ann.is(target, TERMS.immutable),
              doc: ann.doc(target), place: at(`Property ${target}`),
            };
            t.properties.push(prop);
          }
        }
        model.types.set(qname, t);
      } else if (kind === 'EnumType') {
        const members = Object.entries(o).filter(([k]) => !k.startsWith('$') && !k.includes('@')).map(([m, v]) => ({ name: m, value: String(v), doc: [] as string[] }));
        const e: CgEnum = { kind: 'enum', name, namespace: ns, qname, flags: o['$IsFlags'] === true, underlying: qualify(str(o['$UnderlyingType']) ?? 'Edm.Int32'), members, doc: ann.doc(qname), place };
        model.types.set(qname, e);
      } else if (kind === 'TypeDefinition') {
        model.types.set(qname, { kind: 'typedef', name, namespace: ns, qname, underlying: qualify(str(o['$UnderlyingType']) ?? ''), doc: ann.doc(qname), place });
      } else if (kind === 'EntityContainer') {
        for (const [mname, mv] of Object.entries(o)) {
          const m = obj(mv);
          if (mname.startsWith('$') || mname.includes('@') || m === undefined) continue;
          const target = `${qname}/${mname}`;
          annotate(target, m);
          const mplace = at(`${mname} of ${qname}`);
          if (str(m['$Action']) !== undefined || str(m['$Function']) !== undefined) {
            model.imports.push({ kind: m['$Action'] ? 'action' : 'function', name: mname, operation: qualify(str(m['$Action'] ?? m['$Function'])!), params: [], doc: ann.doc(target), place: mplace });
          } else {
            const set = { name: mname, type: qualify(str(m['$Type']) ?? ''), refuses: ann.refused(target), doc: ann.doc(target), place: mplace };
            (m['$Collection'] === true ? model.entitySets : model.singletons).push(set);
          }
        }
      }
    }
  }
  return model;
}
