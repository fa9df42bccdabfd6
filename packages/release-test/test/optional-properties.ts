// Finds the optional properties of the public API that refuse an explicit `undefined` under
// `exactOptionalPropertyTypes` (`signal?: AbortSignal` where `signal?: AbortSignal | undefined` is meant): a
// user's `stream({ signal })` with `signal: AbortSignal | undefined` then fails with TS2379.
import ts from 'typescript';

const internal = (node: ts.Node): boolean => ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');

function acceptsUndefined(type: ts.TypeNode | undefined): boolean {
  if (type === undefined) return true;
  switch (type.kind) {
    case ts.SyntaxKind.UndefinedKeyword:
    case ts.SyntaxKind.AnyKeyword:
    case ts.SyntaxKind.UnknownKeyword:
      return true;
  }
  if (ts.isUnionTypeNode(type)) return type.types.some(acceptsUndefined);
  if (ts.isParenthesizedTypeNode(type)) return acceptsUndefined(type.type);
  return false;
}

/**
 * Every optional property (of an interface, type literal or class) reachable from the exports of `entries`
 * (the packages' `src/index.ts`) through type references, whose declared type lacks `undefined`, as
 * `file:line Owner.property`. Internal members, private members and types of other libraries are left out.
 */
export function optionalWithoutUndefined(program: ts.Program, entries: readonly string[], ours: (file: string) => boolean): string[] {
  const checker = program.getTypeChecker();
  const resolve = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const found = new Set<string>();
  const seen = new Set<ts.Node>();
  const visitDeclaration = (decl: ts.Node, owner: string): void => {
    if (seen.has(decl) || !ours(decl.getSourceFile().fileName)) return;
    seen.add(decl);
    visit(decl, owner);
  };
  const visit = (node: ts.Node, owner: string): void => {
    if (internal(node)) return;
    if (ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) return;
    if ((ts.isPropertySignature(node) || ts.isPropertyDeclaration(node)) && node.questionToken !== undefined && !acceptsUndefined(node.type)) {
      const source = node.getSourceFile();
      found.add(`${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${owner}.${node.name.getText()}`);
    }
    const name = ts.isTypeReferenceNode(node) ? node.typeName : ts.isExpressionWithTypeArguments(node) ? node.expression : undefined;
    const symbol = name && checker.getSymbolAtLocation(name);
    if (symbol) for (const decl of resolve(symbol).declarations ?? []) visitDeclaration(decl, resolve(symbol).name);
    ts.forEachChild(node, (child) => visit(child, owner));
  };
  for (const entry of entries) {
    const source = program.getSourceFile(entry);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry}: not a module`);
    for (const e of checker.getExportsOfModule(module)) for (const decl of resolve(e).declarations ?? []) visitDeclaration(decl, e.name);
  }
  return [...found].sort();
}
