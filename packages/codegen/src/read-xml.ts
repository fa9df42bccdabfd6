import { MetadataParseError, parseXml, type XmlElement } from '@sluice/odata';
import { Annotations, TERMS, WRITE_KINDS, type WriteKind } from './annotations.js';
import { CodegenError } from './errors.js';
import type {
  CgEntitySet, CgEnum, CgImport, CgModel, CgNavigation, CgOperation, CgParameter, CgProperty, CgStructured, CgType, CgTypeDefinition, SourcePlace,
} from './model.js';

const COLLECTION = /^Collection\((.+)\)$/;
/** The v2 entity set attribute (namespace `sap:`) that refuses each write when `false`. */
const SAP_WRITE_ATTRIBUTE: Record<WriteKind, string> = { create: 'creatable', update: 'updatable', delete: 'deletable' };

const children = (el: XmlElement, name: string): XmlElement[] => el.children.filter((c) => c.name === name);
const place = (el: XmlElement): SourcePlace => ({ element: `<${el.name}${el.attrs['Name'] === undefined ? '' : ` Name="${el.attrs['Name']}"`}>`, line: el.line });

/** Reads an EDMX document (OData v4 CSDL XML, 4.0 or 4.01, or v2's EDMX 1.0) into the generator's model. */
export function readEdmxModel(text: string, document: string): CgModel {
  let root: XmlElement;
  try {
    root = parseXml(text, document);
  } catch (error) {
    if (error instanceof MetadataParseError) {
      throw new CodegenError(document, `not well-formed XML: ${error.reason}`, { element: 'the document', line: error.line }, { cause: error });
    }
    throw error;
  }
  const edmx = root.children[0]!;
  if (edmx.name !== 'Edmx') throw new CodegenError(document, `not an EDMX document: the root element is <${edmx.name}>, not <edmx:Edmx>`, place(edmx));
  return new XmlReader(document, edmx).read();
}

class XmlReader {
  private readonly aliases = new Map<string, string>();
  private readonly annotations: Annotations;
  private readonly schemas: XmlElement[];
  private readonly version: '2.0' | '4.0';
  private readonly declared: string;
  /** v2 associations: `<qualified association>/<role>` -> end type and multiplicity. */
  private readonly ends = new Map<string, { type: string; many: boolean }>();

  constructor(private readonly document: string, edmx: XmlElement) {
    const services = children(edmx, 'DataServices')[0];
    if (services === undefined) throw new CodegenError(document, 'the EDMX document has no <edmx:DataServices>', place(edmx));
    const v = edmx.attrs['Version'] ?? '';
    this.version = v.startsWith('4') ? '4.0' : '2.0';
    this.declared = this.version === '4.0' ? v : services.attrs['DataServiceVersion'] ?? v;
    this.schemas = children(services, 'Schema');
    for (const ref of children(edmx, 'Reference')) {
      for (const inc of children(ref, 'Include')) if (inc.attrs['Alias'] && inc.attrs['Namespace']) this.aliases.set(inc.attrs['Alias'], inc.attrs['Namespace']);
    }
    for (const s of this.schemas) if (s.attrs['Alias'] && s.attrs['Namespace']) this.aliases.set(s.attrs['Alias'], s.attrs['Namespace']);
    this.annotations = new Annotations((n) => this.qualify(n));
  }

  /** `Alias.Name` -> `Namespace.Name`; `Collection(...)` kept around the qualified element type. */
  qualify(name: string): string {
    const m = COLLECTION.exec(name);
    if (m) return `Collection(${this.qualify(m[1]!)})`;
    const dot = name.lastIndexOf('.');
    if (dot < 0) return name;
    const ns = this.aliases.get(name.slice(0, dot));
    return ns === undefined ? name : `${ns}.${name.slice(dot + 1)}`;
  }

  /** A target path with its first segment's alias resolved (`self.Product/Price`). */
  private target(path: string): string {
    const slash = path.indexOf('/');
    const paren = path.indexOf('(');
    const end = [slash, paren].filter((i) => i >= 0).reduce((a, b) => Math.min(a, b), path.length);
    return this.qualify(path.slice(0, end)) + path.slice(end);
  }

  private inline(el: XmlElement, target: string): void {
    for (const a of children(el, 'Annotation')) this.annotations.add(target, a);
  }

  read(): CgModel {
    const model: CgModel = { version: this.version, declaredVersion: this.declared, types: new Map(), operations: new Map(), entitySets: [], singletons: [], imports: [] };
    // Annotations first: external ones (<Annotations Target>) anywhere, inline ones where they stand.
    for (const schema of this.schemas) {
      for (const group of children(schema, 'Annotations')) {
        const target = group.attrs['Target'];
        if (target !== undefined) for (const a of children(group, 'Annotation')) this.annotations.add(this.target(target), a);
      }
      const ns = schema.attrs['Namespace'] ?? '';
      for (const assoc of children(schema, 'Association')) {
        for (const end of children(assoc, 'End')) {
          this.ends.set(`${ns}.${assoc.attrs['Name']}/${end.attrs['Role']}`, { type: this.qualify(end.attrs['Type'] ?? ''), many: end.attrs['Multiplicity'] === '*' });
        }
      }
    }
    for (const schema of this.schemas) {
      const ns = schema.attrs['Namespace'];
      if (!ns) throw new CodegenError(this.document, 'a schema has no Namespace', place(schema));
      for (const el of schema.children) {
        let type: CgType | undefined;
        if (el.name === 'EntityType' || el.name === 'ComplexType') type = this.structured(el, ns);
        else if (el.name === 'EnumType') type = this.enumType(el, ns);
        else if (el.name === 'TypeDefinition') type = this.typeDefinition(el, ns);
        else if (el.name === 'Action' || el.name === 'Function') {
          const op = this.operation(el, ns);
          const overloads = model.operations.get(op.qname) ?? [];
          overloads.push(op);
          model.operations.set(op.qname, overloads);
        } else if (el.name === 'EntityContainer') this.container(el, ns, model);
        if (type !== undefined) {
          const before = model.types.get(type.qname);
          if (before !== undefined) throw new CodegenError(this.document, `${type.qname} is declared twice (first at line ${before.place.line ?? '?'})`, type.place);
          model.types.set(type.qname, type);
        }
      }
    }
    return model;
  }

  private name(el: XmlElement): string {
    const name = el.attrs['Name'];
    if (!name) throw new CodegenError(this.document, 'the element has no Name', place(el));
    return name;
  }

  private doc(el: XmlElement, target: string): string[] {
    this.inline(el, target);
    const summary = children(children(el, 'Documentation')[0] ?? el, 'Summary')[0]?.text;
    return this.annotations.doc(target, [el.attrs['label'], el.attrs['quickinfo'], summary]);
  }

  private structured(el: XmlElement, ns: string): CgStructured {
    const name = this.name(el);
    const qname = `${ns}.${name}`;
    const keyEl = children(el, 'Key')[0];
    const t: CgStructured = {
      kind: el.name === 'EntityType' ? 'entity' : 'complex', name, namespace: ns, qname,
      baseType: el.attrs['BaseType'] === undefined ? undefined : this.qualify(el.attrs['BaseType']),
      abstract: el.attrs['Abstract'] === 'true', open: el.attrs['OpenType'] === 'true', hasStream: el.attrs['HasStream'] === 'true',
      key: keyEl ? children(keyEl, 'PropertyRef').map((r) => r.attrs['Name'] ?? '') : [],
      properties: [], navigation: [], doc: this.doc(el, qname), place: place(el),
    };
    const seen = new Set<string>();
    const unique = (member: XmlElement, n: string): void => {
      if (seen.has(n)) throw new CodegenError(this.document, `${qname} declares the member ${n} twice`, place(member));
      seen.add(n);
    };
    for (const p of children(el, 'Property')) {
      const pname = this.name(p);
      unique(p, pname);
      const target = `${qname}/${pname}`;
      const doc = this.doc(p, target);
      const creatable = p.attrs['creatable'] !== 'false';
      const updatable = p.attrs['updatable'] !== 'false';
      const prop: CgProperty = {
        name: pname, type: this.qualify(p.attrs['Type'] ?? ''), nullable: p.attrs['Nullable'] !== 'false',
        // v2: not creatable and not updatable is what the server computes; not creatable alone cannot be sent either.
        computed: this.annotations.is(target, TERMS.computed) || !creatable,
        immutable: this.annotations.is(target, TERMS.immutable) || !updatable,
        displayFormat: p.attrs['display-format'], doc, place: place(p),
      };
      if (!p.attrs['Type']) throw new CodegenError(this.document, `${qname}/${pname} has no Type`, prop.place);
      t.properties.push(prop);
    }
    for (const n of children(el, 'NavigationProperty')) {
      const nname = this.name(n);
      unique(n, nname);
      t.navigation.push(this.navigation(n, nname, qname));
    }
    return t;
  }

  private navigation(n: XmlElement, name: string, owner: string): CgNavigation {
    const doc = this.doc(n, `${owner}/${name}`);
    if (n.attrs['Type'] !== undefined) {
      const type = this.qualify(n.attrs['Type']);
      const m = COLLECTION.exec(type);
      return { name, type: m ? m[1]! : type, many: m !== null, doc, place: place(n) };
    }
    const end = this.ends.get(`${this.qualify(n.attrs['Relationship'] ?? '')}/${n.attrs['ToRole'] ?? ''}`);
    if (end === undefined) {
      throw new CodegenError(this.document, `the association end ${n.attrs['Relationship'] ?? '?'}/${n.attrs['ToRole'] ?? '?'} is not declared`, place(n));
    }
    return { name, type: end.type, many: end.many, doc, place: place(n) };
  }

  private enumType(el: XmlElement, ns: string): CgEnum {
    const name = this.name(el);
    const qname = `${ns}.${name}`;
    let next = 0;
    const members = children(el, 'Member').map((m) => {
      const value = m.attrs['Value'] ?? String(next);
      next = Number(value) + 1;
      return { name: this.name(m), value, doc: this.doc(m, `${qname}/${m.attrs['Name'] ?? ''}`) };
    });
    return {
      kind: 'enum', name, namespace: ns, qname, flags: el.attrs['IsFlags'] === 'true', underlying: this.qualify(el.attrs['UnderlyingType'] ?? 'Edm.Int32'),
      members, doc: this.doc(el, qname), place: place(el),
    };
  }

  private typeDefinition(el: XmlElement, ns: string): CgTypeDefinition {
    const name = this.name(el);
    const qname = `${ns}.${name}`;
    return { kind: 'typedef', name, namespace: ns, qname, underlying: this.qualify(el.attrs['UnderlyingType'] ?? ''), doc: this.doc(el, qname), place: place(el) };
  }

  /**
   * An operation's parameters. v4 parameters are nullable unless `Nullable="false"`; a v2 function import's
   * only with `Nullable="true"` (CSDL 2.0 gives parameters no Nullable facet; SAP Gateway writes it on the
   * optional ones only and refuses a call without the others).
   */
  private params(el: XmlElement, v2 = false): CgParameter[] {
    return children(el, 'Parameter').map((p) => ({
      name: this.name(p), type: this.qualify(p.attrs['Type'] ?? ''), nullable: v2 ? p.attrs['Nullable'] === 'true' : p.attrs['Nullable'] !== 'false',
    }));
  }

  private operation(el: XmlElement, ns: string): CgOperation {
    const name = this.name(el);
    const qname = `${ns}.${name}`;
    const bound = el.attrs['IsBound'] === 'true';
    const params = this.params(el);
    const ret = children(el, 'ReturnType')[0];
    const op: CgOperation = {
      kind: el.name === 'Action' ? 'action' : 'function', name, qname, bound, bindingCollection: false,
      params: bound ? params.slice(1) : params,
      returns: ret?.attrs['Type'] === undefined ? undefined : { type: this.qualify(ret.attrs['Type']), nullable: ret.attrs['Nullable'] !== 'false' },
      doc: this.doc(el, qname), place: place(el),
    };
    if (bound) {
      const binding = params[0];
      if (binding === undefined) throw new CodegenError(this.document, `bound ${op.kind} ${qname} has no binding parameter`, op.place);
      const m = COLLECTION.exec(binding.type);
      op.bindingType = m ? m[1]! : binding.type;
      op.bindingCollection = m !== null;
    }
    return op;
  }

  private container(el: XmlElement, ns: string, model: CgModel): void {
    const cname = `${ns}.${el.attrs['Name'] ?? ''}`;
    const names = new Map<string, XmlElement>([...model.entitySets, ...model.singletons, ...model.imports].map((x) => [x.name, el]));
    for (const c of el.children) {
      if (!['EntitySet', 'Singleton', 'FunctionImport', 'ActionImport'].includes(c.name)) continue;
      const name = this.name(c);
      if (names.has(name)) throw new CodegenError(this.document, `the entity container declares ${name} twice`, place(c));
      names.set(name, c);
      const doc = this.doc(c, `${cname}/${name}`);
      if (c.name === 'EntitySet' || c.name === 'Singleton') {
        const type = c.attrs['EntityType'] ?? c.attrs['Type'];
        if (type === undefined) throw new CodegenError(this.document, `${name} names no entity type`, place(c));
        // v4: Capabilities annotations; v2 (SAP Gateway): sap:creatable/updatable/deletable="false" on the set.
        const byTerm = this.annotations.refused(`${cname}/${name}`);
        const refuses = WRITE_KINDS.filter((k) => byTerm.includes(k) || c.attrs[SAP_WRITE_ATTRIBUTE[k]] === 'false');
        const set: CgEntitySet = { name, type: this.qualify(type), refuses, doc, place: place(c) };
        (c.name === 'EntitySet' ? model.entitySets : model.singletons).push(set);
      } else {
        const v4 = c.attrs['Action'] ?? c.attrs['Function'];
        const imp: CgImport = { kind: c.name === 'ActionImport' ? 'action' : 'function', name, params: [], doc, place: place(c) };
        if (v4 !== undefined) imp.operation = this.qualify(v4);
        else {
          // v2 function import: parameters and return type on it; called with POST/PUT/... it is an action.
          imp.params = this.params(c, true);
          if ((c.attrs['HttpMethod'] ?? 'GET').toUpperCase() !== 'GET') imp.kind = 'action';
          if (c.attrs['ReturnType'] !== undefined) imp.returns = { type: this.qualify(c.attrs['ReturnType']), nullable: true };
        }
        model.imports.push(imp);
      }
    }
  }
}
