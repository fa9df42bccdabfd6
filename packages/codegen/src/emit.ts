import { edmTsType, type EdmValueOptions } from '@sluice/odata';
import type { CgEnum, CgModel, CgOperation, CgParameter, CgProperty, CgStructured, Doc } from './model.js';
import { DeclarationNames, memberName } from './names.js';
import type { Selection } from './select.js';
import { allNavigation, allProperties, elementOf, keyOf, lineage } from './validate.js';

/** A TSDoc comment of `doc` (nothing when empty), indented. */
export function docComment(doc: Doc, indent = '', extra: readonly string[] = []): string {
  const lines = [...doc, ...extra].flatMap((d) => d.split(/\r?\n/)).map((l) => l.replace(/\*\//g, '*\\/').trimEnd());
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l === '' ? '' : ` ${l}`}`).join('\n')}\n${indent} */\n`;
}

/** `T[]` (a union in brackets). */
const arrayOf = (t: string): string => (/[|&]/.test(t) ? `(${t})[]` : `${t}[]`);

/** Emits the declarations of a selected model: one props interface and one spec per entity type, and the Service. */
export class Emitter {
  private readonly names: DeclarationNames;
  private readonly out: string[] = [];
  /** Selected bound operations by binding type (so each entity type finds its own without a scan of all). */
  private readonly bound = new Map<string, Array<[string, CgOperation]>>();
  /** What each entity type's spec writes (a derived type's spec compares its own with its base's). */
  private readonly members = new Map<string, Map<string, string>>();

  constructor(private readonly model: CgModel, private readonly sel: Selection, private readonly values: EdmValueOptions) {
    this.names = new DeclarationNames(model, (q) => sel.types.has(q));
    for (const [qname, overloads] of model.operations) {
      if (!sel.operations.has(qname)) continue;
      for (const op of overloads) {
        if (!op.bound || op.bindingType === undefined) continue;
        const list = this.bound.get(op.bindingType) ?? [];
        list.push([qname, op]);
        this.bound.set(op.bindingType, list);
      }
    }
  }

  /** The TypeScript type of a value of `type` (no `| null`). */
  private ts(type: string, displayFormat?: string): string {
    const { type: el, many } = elementOf(type);
    let t: string;
    // Path types (vocabularies) are strings; the abstract Edm.EntityType/ComplexType are whatever comes.
    if (el.startsWith('Edm.')) t = displayFormat === 'Date' && el === 'Edm.DateTime' ? 'string' : edmTsType(el, this.values) ?? (el.endsWith('Path') ? 'string' : 'unknown');
    else {
      const decl = this.model.types.get(el);
      t = decl?.kind === 'typedef' ? this.ts(decl.underlying) : this.names.types.get(el) ?? 'unknown';
    }
    return many ? arrayOf(t) : t;
  }

  /** A property's type as read: `| null` where nullable (on the elements, for a collection). */
  private propType(p: { type: string; nullable: boolean; displayFormat?: string | undefined }): string {
    const { type: el, many } = elementOf(p.type);
    const inner = this.ts(el, p.displayFormat);
    const value = p.nullable ? `${inner} | null` : inner;
    return many ? arrayOf(value) : value;
  }

  /** The EDM type the typed filter builder reads: primitive, enum/complex by qualified name, type definitions as their underlying type. */
  private edm(type: string): string {
    const { type: el, many } = elementOf(type);
    const decl = this.model.types.get(el);
    const t = decl?.kind === 'typedef' ? decl.underlying : el;
    return many ? `Collection(${t})` : t;
  }

  private visible(props: readonly CgProperty[]): CgProperty[] {
    // Stream properties are not in an entity's JSON: they are read through their media links.
    return props.filter((p) => p.type !== 'Edm.Stream');
  }

  private map(entries: Array<[string, string, Doc?]>, indent: string): string {
    if (entries.length === 0) return 'EmptyMap';
    return `{\n${entries.map(([k, v, doc]) => `${docComment(doc ?? [], `${indent}  `)}${indent}  ${memberName(k)}: ${v};`).join('\n')}\n${indent}}`;
  }

  private structured(t: CgStructured): void {
    const name = this.names.types.get(t.qname)!;
    const base = t.baseType === undefined ? undefined : this.names.types.get(t.baseType);
    const notes = [t.abstract ? `Abstract ${t.kind === 'entity' ? 'entity' : 'complex'} type ${t.qname}.` : `${t.kind === 'entity' ? 'Entity' : 'Complex'} type ${t.qname}.`];
    if (t.open) notes.push('Open type: dynamic properties are not typed.');
    const members = this.visible(t.properties).map((p) => `${docComment(p.doc, '  ')}  ${memberName(p.name)}: ${this.propType(p)};`);
    this.out.push(`${docComment(t.doc, '', notes)}export interface ${name}${base ? ` extends ${base}` : ''} {${members.length ? `\n${members.join('\n')}\n` : ''}}\n`);
    if (t.kind === 'entity') this.spec(t, name);
  }

  /** What a spec writes for `t`: members by name, in order (the spec of its base type may give some). */
  private specMembers(t: CgStructured, name: string): Map<string, string> {
    const cached = this.members.get(t.qname);
    if (cached !== undefined) return cached;
    const props = this.visible(allProperties(this.model, t));
    const byName = new Map(props.map((p) => [p.name, p]));
    const key = keyOf(this.model, t);
    const union = (names: string[]): string => (names.length === 0 ? 'never' : [...new Set(names)].map((n) => JSON.stringify(n)).join(' | '));
    const nav = allNavigation(this.model, t).filter((n) => this.sel.types.has(n.type));
    const bound = this.boundOperations(t);
    const m = new Map<string, string>([
      ['props', name],
      ['key', key.length === 0 ? 'EmptyMap' : `{ ${key.map((k) => `${memberName(k)}: ${this.ts(byName.get(k)?.type ?? 'Edm.String', byName.get(k)?.displayFormat)}`).join('; ')} }`],
      ['edm', this.edmMap(props)],
      ['nav', this.map(nav.map((n) => [n.name, `{ target: ${this.names.specs.get(n.type)!}; many: ${n.many} }`, n.doc]), '  ')],
      ['computed', union(props.filter((p) => p.computed).map((p) => p.name))],
      ['immutable', union([...key, ...props.filter((p) => p.immutable).map((p) => p.name)])],
      ['actions', this.map(bound.actions, '  ')],
      ['functions', this.map(bound.functions, '  ')],
      ['collectionActions', this.map(bound.collectionActions, '  ')],
      ['collectionFunctions', this.map(bound.collectionFunctions, '  ')],
    ]);
    this.members.set(t.qname, m);
    return m;
  }

  private edmMap(props: readonly CgProperty[]): string {
    return props.length === 0 ? 'EmptyMap' : `{ ${props.map((p) => `${memberName(p.name)}: ${JSON.stringify(this.edm(p.type))}`).join('; ')} }`;
  }

  /**
   * The spec of an entity type. Members that are empty maps come from `SpecBase`; a derived type's spec extends
   * its base type's (when its key, computed and immutable names and bound operations leave the base's as they are)
   * and writes only what it adds: its props, its own properties' EDM types and navigation (intersected with the
   * base's), and the bound operations maps that differ.
   */
  private spec(t: CgStructured, name: string): void {
    const members = this.specMembers(t, name);
    const baseT = t.baseType === undefined ? undefined : this.model.types.get(t.baseType);
    const baseSpec = baseT?.kind === 'entity' ? this.names.specs.get(baseT.qname) : undefined;
    const inherited = baseT?.kind === 'entity' && baseSpec !== undefined ? this.specMembers(baseT, this.names.types.get(baseT.qname)!) : undefined;
    const opGroups = ['actions', 'functions', 'collectionActions', 'collectionFunctions'];
    // A map that keeps every entry of the base's map, unchanged, may override it (an interface member may narrow).
    const extendsMap = (mine: string, base: string): boolean => base === 'EmptyMap' || base.slice(0, -1).split('\n').every((l) => mine.includes(l));
    const canExtend = inherited !== undefined
      && ['key', 'computed', 'immutable'].every((k) => members.get(k) === inherited.get(k))
      && opGroups.every((k) => extendsMap(members.get(k)!, inherited.get(k)!));
    const lines: string[] = [];
    if (canExtend) {
      lines.push(`  props: ${name};`);
      const own = this.visible(t.properties);
      if (own.length > 0) lines.push(`  edm: ${baseSpec}["edm"] & ${this.edmMap(own)};`);
      const ownNav = t.navigation.filter((n) => this.sel.types.has(n.type));
      if (ownNav.length > 0) lines.push(`  nav: ${inherited.get('nav') === 'EmptyMap' ? '' : `${baseSpec}["nav"] & `}${this.map(ownNav.map((n) => [n.name, `{ target: ${this.names.specs.get(n.type)!}; many: ${n.many} }`, n.doc]), '  ')};`);
      for (const k of opGroups) if (members.get(k) !== inherited.get(k)) lines.push(`  ${k}: ${members.get(k)!};`);
    } else {
      for (const [k, v] of members) if (!(opGroups.includes(k) || k === 'nav') || v !== 'EmptyMap') lines.push(`  ${k}: ${v};`);
      // v2: select() takes paths through navigation (`to_Customer/CustomerName`), as v2's $select does.
      if (this.model.version === '2.0') lines.push('  odataVersion: "2.0";');
    }
    this.out.push(`/** How the typed client sees ${t.qname}. */\nexport interface ${this.names.specs.get(t.qname)!} extends ${canExtend ? baseSpec! : 'SpecBase'} {\n${lines.join('\n')}\n}\n`);
  }

  private boundOperations(t: CgStructured): Record<'actions' | 'functions' | 'collectionActions' | 'collectionFunctions', Array<[string, string, Doc]>> {
    const groups = { actions: new Map<string, CgOperation[]>(), functions: new Map<string, CgOperation[]>(), collectionActions: new Map<string, CgOperation[]>(), collectionFunctions: new Map<string, CgOperation[]>() };
    // Base types first, so that the order follows the document for each level.
    for (const c of lineage(this.model, t).reverse()) {
      for (const [qname, op] of this.bound.get(c.qname) ?? []) {
        const group = op.bindingCollection ? (op.kind === 'action' ? groups.collectionActions : groups.collectionFunctions) : op.kind === 'action' ? groups.actions : groups.functions;
        const list = group.get(qname);
        if (list) list.push(op);
        else group.set(qname, [op]);
      }
    }
    const entries = (m: Map<string, CgOperation[]>): Array<[string, string, Doc]> => [...m].map(([q, ops]) => [q, this.operationSpec(ops), ops[0]!.doc]);
    return { actions: entries(groups.actions), functions: entries(groups.functions), collectionActions: entries(groups.collectionActions), collectionFunctions: entries(groups.collectionFunctions) };
  }

  private params(params: readonly CgParameter[]): string {
    if (params.length === 0) return 'EmptyMap';
    return `{ ${params.map((p) => `${memberName(p.name)}${p.nullable ? '?' : ''}: ${this.propType(p)}`).join('; ')} }`;
  }

  /** `{ params: ...; returns: ... }` of the overloads of one operation (params a union when they differ). */
  operationSpec(ops: ReadonlyArray<{ params: CgParameter[]; returns?: { type: string; nullable: boolean } | undefined }>): string {
    const params = [...new Set(ops.map((o) => this.params(o.params)))].join(' | ');
    // A returned collection holds no nulls (entities, complex values); a single result is null where nullable.
    const result = (r: { type: string; nullable: boolean }): string => (elementOf(r.type).many ? this.ts(r.type) : this.propType(r));
    const returns = [...new Set(ops.map((o) => (o.returns === undefined ? 'void' : result(o.returns))))].join(' | ');
    return `{ params: ${params}; returns: ${returns} }`;
  }

  private enumType(t: CgEnum): void {
    const name = this.names.types.get(t.qname)!;
    const members = t.members.map((m) => `${m.name} = ${m.value}`).join(', ');
    // Enum values read as their member names; a flags value as a comma-separated list of them.
    const type = t.flags || t.members.length === 0 ? 'string' : t.members.map((m) => JSON.stringify(m.name)).join(' | ');
    const notes = [`${t.flags ? 'Flags enum' : 'Enum'} type ${t.qname}${members ? `: ${members}` : ' (no members)'}.`];
    if (t.flags) notes.push('Read as the names of the members set, separated by commas.');
    this.out.push(`${docComment(t.doc, '', notes)}export type ${name} = ${type};\n`);
  }

  /** The whole file body (without header and summary). */
  emit(): string {
    for (const t of this.model.types.values()) {
      if (!this.sel.types.has(t.qname)) continue;
      if (t.kind === 'entity' || t.kind === 'complex') this.structured(t);
      else if (t.kind === 'enum') this.enumType(t);
      else if (t.kind === 'typedef') this.out.push(`${docComment(t.doc, '', [`Type definition ${t.qname} (${t.underlying}).`])}export type ${this.names.types.get(t.qname)!} = ${this.ts(t.underlying)};\n`);
    }
    this.out.push(this.service());
    // Declared only when used: an unused local type fails projects with noUnusedLocals.
    if (this.out.some((d) => d.includes(' SpecBase {'))) {
      this.out.unshift('/** What a spec has unless it says otherwise: no navigation, no bound operations. */\n'
        + 'interface SpecBase { nav: EmptyMap; actions: EmptyMap; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap }\n');
    }
    if (this.out.some((d) => d.includes('EmptyMap'))) this.out.unshift('/** An empty map of the spec (no navigation, no operations, no parameters). */\ntype EmptyMap = Record<never, never>;\n');
    return this.out.join('\n');
  }

  private service(): string {
    const sets = (list: CgModel['entitySets']): Array<[string, string, Doc]> =>
      list.filter((s) => this.sel.sets.has(s.name)).map((s) => [s.name, this.names.specs.get(s.type)!, s.doc]);
    const ops = (kind: 'action' | 'function'): Array<[string, string, Doc]> => this.model.imports
      .filter((i) => i.kind === kind && this.sel.sets.has(i.name))
      .map((i) => {
        const overloads: ReadonlyArray<Pick<CgOperation, 'params' | 'returns'>> = i.operation === undefined ? [i] : this.model.operations.get(i.operation)!.filter((o) => !o.bound);
        return [i.name, this.operationSpec(overloads), i.doc];
      });
    // One union of writes per set that refuses any (none: no member): what the typed client's create/update/delete check.
    const refuses: Array<[string, string]> = [...this.model.entitySets, ...this.model.singletons]
      .filter((s) => s.refuses.length > 0 && this.sel.sets.has(s.name))
      .map((s) => [s.name, s.refuses.map((w) => JSON.stringify(w)).join(' | ')]);
    return `/** The service: what \`createODataClient<Service>()\` is typed by. */\nexport interface Service {\n`
      + `  entitySets: ${this.map(sets(this.model.entitySets), '  ')};\n`
      + `  singletons: ${this.map(sets(this.model.singletons), '  ')};\n`
      + `  actions: ${this.map(ops('action'), '  ')};\n`
      + `  functions: ${this.map(ops('function'), '  ')};\n`
      + (refuses.length === 0 ? '' : `  /** The writes entity sets and singletons refuse (Capabilities annotations, v2 sap:creatable/updatable/deletable). */\n`
        + `  refuses: ${this.map(refuses, '  ')};\n`)
      + '}\n';
  }
}
