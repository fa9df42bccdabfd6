import type { XmlElement } from '@sluice/odata';

/** Namespaces of the vocabularies the generator reads. */
const CORE = 'Org.OData.Core.V1';
const COMMON = 'com.sap.vocabularies.Common.v1';
const CAPABILITIES = 'Org.OData.Capabilities.V1';

/** Terms the generator reads, by their namespace-qualified names. */
export const TERMS = {
  computed: `${CORE}.Computed`,
  immutable: `${CORE}.Immutable`,
  description: `${CORE}.Description`,
  longDescription: `${CORE}.LongDescription`,
  label: `${COMMON}.Label`,
  quickInfo: `${COMMON}.QuickInfo`,
  // Record members are kept as `<term>/<property>` (boolean ones only).
  insertable: `${CAPABILITIES}.InsertRestrictions/Insertable`,
  updatable: `${CAPABILITIES}.UpdateRestrictions/Updatable`,
  deletable: `${CAPABILITIES}.DeleteRestrictions/Deletable`,
} as const;

/** A write an entity set may refuse, as the typed client names it (`create()`, `update()`/`replace()`, `delete()`). */
export type WriteKind = 'create' | 'update' | 'delete';

/** The writes, in the order the generator lists them. */
export const WRITE_KINDS: readonly WriteKind[] = ['create', 'update', 'delete'];
const WRITE_TERMS: Record<WriteKind, string> = { create: TERMS.insertable, update: TERMS.updatable, delete: TERMS.deletable };

/** An annotation's value as the generator needs it: a string, or a boolean (a term without a value is true). */
export type AnnotationValue = string | boolean;

/** Annotations by target path (`NS.Type/Property`, namespace-qualified) and term (namespace-qualified). */
export class Annotations {
  private readonly byTarget = new Map<string, Map<string, AnnotationValue>>();

  constructor(private readonly qualify: (name: string) => string) {}

  /** Records one `<Annotation Term=...>` for `target`; annotations with a qualifier are left out. */
  add(target: string, el: XmlElement): void {
    const term = el.attrs['Term'];
    if (term === undefined || el.attrs['Qualifier'] !== undefined) return;
    let map = this.byTarget.get(target);
    if (map === undefined) this.byTarget.set(target, (map = new Map()));
    const qterm = this.qualify(term);
    map.set(qterm, valueOf(el));
    // A record's boolean members (`<PropertyValue Property="Insertable" Bool="false"/>`) as `<term>/<member>`.
    const record = el.children[0]?.name === 'Record' ? el.children[0] : undefined;
    for (const pv of record?.children ?? []) {
      const name = pv.attrs['Property'];
      const bool = pv.attrs['Bool'] ?? (pv.children[0]?.name === 'Bool' ? pv.children[0].text.trim() : undefined);
      if (pv.name === 'PropertyValue' && name !== undefined && bool !== undefined) map.set(`${qterm}/${name}`, bool === 'true');
    }
  }

  /** Records a CSDL JSON annotation (`"@Core.Computed": true`). */
  addJson(target: string, term: string, value: unknown): void {
    if (term.includes('#')) return;
    let map = this.byTarget.get(target);
    if (map === undefined) this.byTarget.set(target, (map = new Map()));
    const qterm = this.qualify(term);
    map.set(qterm, typeof value === 'string' || typeof value === 'boolean' ? value : true);
    // A record's boolean members (`{ "Insertable": false }`) as `<term>/<member>`.
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) if (typeof v === 'boolean' && !k.includes('@')) map.set(`${qterm}/${k}`, v);
    }
  }

  get(target: string, term: string): AnnotationValue | undefined {
    return this.byTarget.get(target)?.get(term);
  }

  /** Whether a boolean term holds (present without `false`). */
  is(target: string, term: string): boolean {
    const v = this.get(target, term);
    return v !== undefined && v !== false && v !== 'false';
  }

  /** Whether a boolean term (or record member) is set to false: present, and `false`. */
  isFalse(target: string, term: string): boolean {
    const v = this.get(target, term);
    return v === false || v === 'false';
  }

  /** The writes an entity set or singleton refuses by its Capabilities annotations (`Insertable` false, ...). */
  refused(target: string): WriteKind[] {
    return WRITE_KINDS.filter((kind) => this.isFalse(target, WRITE_TERMS[kind]));
  }

  /** Documentation lines of a target: label, quick info, description, long description, then `extra`. */
  doc(target: string, extra: readonly (string | undefined)[] = []): string[] {
    const lines: string[] = [];
    const add = (v: unknown): void => {
      if (typeof v !== 'string') return;
      const t = v.trim();
      if (t !== '' && !lines.includes(t)) lines.push(t);
    };
    for (const e of extra) add(e);
    add(this.get(target, TERMS.label));
    add(this.get(target, TERMS.quickInfo));
    add(this.get(target, TERMS.description));
    add(this.get(target, TERMS.longDescription));
    return lines;
  }
}

function valueOf(el: XmlElement): AnnotationValue {
  const a = el.attrs;
  if (a['String'] !== undefined) return a['String'];
  if (a['Bool'] !== undefined) return a['Bool'] === 'true';
  const child = el.children[0];
  if (child?.name === 'String') return child.text;
  if (child?.name === 'Bool') return child.text.trim() === 'true';
  return true;
}
