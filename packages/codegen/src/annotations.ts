import type { XmlElement } from '@sluice/odata';

/** Namespaces of the vocabularies the generator reads. */
const CORE = 'Org.OData.Core.V1';
const COMMON = 'com.sap.vocabularies.Common.v1';

/** Terms the generator reads, by their namespace-qualified names. */
export const TERMS = {
  computed: `${CORE}.Computed`,
  immutable: `${CORE}.Immutable`,
  description: `${CORE}.Description`,
  longDescription: `${CORE}.LongDescription`,
  label: `${COMMON}.Label`,
  quickInfo: `${COMMON}.QuickInfo`,
} as const;

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
    map.set(this.qualify(term), valueOf(el));
  }

  /** Records a CSDL JSON annotation (`"@Core.Computed": true`). */
  addJson(target: string, term: string, value: unknown): void {
    if (term.includes('#')) return;
    let map = this.byTarget.get(target);
    if (map === undefined) this.byTarget.set(target, (map = new Map()));
    map.set(this.qualify(term), typeof value === 'string' || typeof value === 'boolean' ? value : true);
  }

  get(target: string, term: string): AnnotationValue | undefined {
    return this.byTarget.get(target)?.get(term);
  }

  /** Whether a boolean term holds (present without `false`). */
  is(target: string, term: string): boolean {
    const v = this.get(target, term);
    return v !== undefined && v !== false && v !== 'false';
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
