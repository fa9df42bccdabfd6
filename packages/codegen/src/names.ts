import type { CgModel } from './model.js';

/** Words a declaration may not be named: TypeScript's reserved and contextual words, and the globals the output uses. */
const RESERVED = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends',
  'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this',
  'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'as', 'implements', 'interface', 'let', 'package', 'private',
  'protected', 'public', 'static', 'yield', 'any', 'boolean', 'number', 'string', 'symbol', 'type', 'from', 'of', 'unknown', 'never',
  'object', 'bigint', 'undefined', 'await', 'async', 'declare', 'module', 'namespace', 'require', 'keyof', 'readonly', 'infer', 'is',
  'asserts', 'global', 'satisfies', 'accessor', 'out', 'abstract', 'constructor', 'get', 'set',
  'Array', 'Date', 'Record', 'Partial', 'Omit', 'Pick', 'Object', 'String', 'Number', 'Boolean', 'Function', 'Promise',
  // Declared by every generated file.
  'Service', 'EmptyMap', 'SpecBase',
]);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A valid TypeScript identifier for `name`: other characters become `_`, a leading digit gets `_`, a reserved word `_` after it. */
export function identifier(name: string): string {
  let id = name.replace(/[^\w$]/g, '_');
  if (/^\d/.test(id) || id === '') id = `_${id}`;
  return RESERVED.has(id) ? `${id}_` : id;
}

/** A property name as an object type member: bare when it is an identifier, else quoted. */
export function memberName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/**
 * The TypeScript names of the declarations of a model: type name to its props interface (or enum or type
 * alias), and entity type to its spec (`<name>Spec`). The service's own name where it is a valid identifier
 * that no earlier declaration took; else, in document order: invalid characters become `_` (see
 * {@link identifier}), then the namespace goes in front (`Other_Product`), then `_2`, `_3`, ... after it.
 */
export class DeclarationNames {
  private readonly taken = new Set(['Service', 'EmptyMap', 'SpecBase']);
  readonly types = new Map<string, string>();
  readonly specs = new Map<string, string>();

  constructor(model: CgModel, include: (qname: string) => boolean = () => true) {
    for (const t of model.types.values()) {
      if (!include(t.qname)) continue;
      const entity = t.kind === 'entity';
      const free = (n: string): boolean => !this.taken.has(n) && !(entity && this.taken.has(`${n}Spec`));
      const base = identifier(t.name);
      let name = base;
      if (!free(name)) name = `${identifier(t.namespace)}_${base}`;
      for (let i = 2; !free(name); i++) name = `${identifier(t.namespace)}_${base}_${i}`;
      this.taken.add(name);
      this.types.set(t.qname, name);
      if (entity) {
        this.taken.add(`${name}Spec`);
        this.specs.set(t.qname, `${name}Spec`);
      }
    }
  }
}
