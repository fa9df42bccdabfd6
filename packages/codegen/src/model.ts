/** What the generator knows of a service: its own model, read from EDMX (v2/v4) or CSDL JSON. */
import type { WriteKind } from './annotations.js';

/** Where an element of the source document is, for errors and nothing else. */
export interface SourcePlace {
  /** The element as written: `<Property Name="Price">`. */
  element: string;
  /** 1-based line of the element in the document, when known (XML). */
  line?: number | undefined;
}

/** Documentation of an element: label (`sap:label`, `Common.Label`) and description lines. */
export type Doc = readonly string[];

export interface CgProperty {
  name: string;
  /** Namespace-qualified type; `Collection(...)` for collections. */
  type: string;
  nullable: boolean;
  /** `Core.Computed` or v2 `sap:creatable="false"` (and not updatable): `create()` refuses it. */
  computed: boolean;
  /** `Core.Immutable` or v2 `sap:updatable="false"`: `update()` refuses it. */
  immutable: boolean;
  /** SAP `sap:display-format` (`Date`: a calendar date on an `Edm.DateTime`). */
  displayFormat?: string | undefined;
  doc: Doc;
  place: SourcePlace;
}

export interface CgNavigation {
  name: string;
  /** Namespace-qualified target entity type. */
  type: string;
  many: boolean;
  doc: Doc;
  place: SourcePlace;
}

export interface CgStructured {
  kind: 'entity' | 'complex';
  name: string;
  namespace: string;
  qname: string;
  baseType?: string | undefined;
  abstract: boolean;
  open: boolean;
  hasStream: boolean;
  /** The type's own key (empty: inherited or none). */
  key: string[];
  properties: CgProperty[];
  navigation: CgNavigation[];
  doc: Doc;
  place: SourcePlace;
}

export interface CgEnum {
  kind: 'enum';
  name: string;
  namespace: string;
  qname: string;
  flags: boolean;
  underlying: string;
  members: Array<{ name: string; value: string; doc: Doc }>;
  doc: Doc;
  place: SourcePlace;
}

export interface CgTypeDefinition {
  kind: 'typedef';
  name: string;
  namespace: string;
  qname: string;
  /** The underlying primitive type (`Edm.String`). */
  underlying: string;
  doc: Doc;
  place: SourcePlace;
}

export type CgType = CgStructured | CgEnum | CgTypeDefinition;

export interface CgParameter {
  name: string;
  type: string;
  nullable: boolean;
}

export interface CgOperation {
  kind: 'action' | 'function';
  name: string;
  qname: string;
  bound: boolean;
  /** Binding parameter's type (element type for a collection). */
  bindingType?: string | undefined;
  bindingCollection: boolean;
  /** Parameters after the binding parameter. */
  params: CgParameter[];
  returns?: { type: string; nullable: boolean } | undefined;
  doc: Doc;
  place: SourcePlace;
}

/** An action import, function import, or v2 function import (parameters and return type on it). */
export interface CgImport {
  kind: 'action' | 'function';
  name: string;
  /** The imported v4 operation (qualified); undefined for v2. */
  operation?: string | undefined;
  params: CgParameter[];
  returns?: { type: string; nullable: boolean } | undefined;
  doc: Doc;
  place: SourcePlace;
}

export interface CgEntitySet {
  name: string;
  /** Qualified entity type. */
  type: string;
  /**
   * The writes the set refuses (`create`, `update`, `delete`, in that order): v4 `Capabilities`
   * `InsertRestrictions/Insertable`, `UpdateRestrictions/Updatable`, `DeleteRestrictions/Deletable` false, v2
   * `sap:creatable`, `sap:updatable`, `sap:deletable` false.
   */
  refuses: WriteKind[];
  doc: Doc;
  place: SourcePlace;
}

export interface CgModel {
  /** `'2.0'` for EDMX 1.0 (v2, also v1/v3 documents), `'4.0'` for CSDL 4.0 and 4.01. */
  version: '2.0' | '4.0';
  /** As the document declares it (`4.01`, `2.0`). */
  declaredVersion: string;
  /** Types by namespace-qualified name, in document order. */
  types: Map<string, CgType>;
  /** Actions and functions (all overloads) by namespace-qualified name, in document order. */
  operations: Map<string, CgOperation[]>;
  entitySets: CgEntitySet[];
  singletons: CgEntitySet[];
  imports: CgImport[];
}
