// Finds the types a package's public API names without exporting them: a parameter, property or base
// class whose type a user cannot name, or whose members the build stripped as `@internal` (a user's
// `ODataClient` is then not assignable to it: `new DeltaSync(od, …)` failed with TS2345 so).
import ts from 'typescript';

/**
 * For each `.d.ts` entry (the installed packages' `types`, each one in `program`: the release test's
 * docs check, NodeNext with the strict settings, holds them as roots), the declarations its exports refer to that no
 * entry exports, as `Name: where it is used`. Types of other libraries (Node, undici) are not ours to check;
 * private and protected members are not public.
 */
export function unexportedPublicTypes(entries: readonly string[], program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const resolve = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const exported = new Set<ts.Symbol>();
  const entryFiles = entries.map((file) => {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!source || !module) throw new Error(`${file}: not a module`);
    for (const e of checker.getExportsOfModule(module)) exported.add(resolve(e));
    return source;
  });
  const ours = new Set(entryFiles.map((f) => f.fileName));
  const problems = new Map<string, Set<string>>();
  const seen = new Set<ts.Node>();

  const visitType = (node: ts.Node, where: string): void => {
    let name: ts.Node | undefined;
    if (ts.isTypeReferenceNode(node)) name = node.typeName;
    else if (ts.isExpressionWithTypeArguments(node)) name = node.expression;
    else if (ts.isTypeQueryNode(node)) name = node.exprName;
    const symbol = name && checker.getSymbolAtLocation(name);
    if (symbol) {
      const s = resolve(symbol);
      const decl = s.declarations?.[0];
      // `typeof X.Member` names a member of an exported value, not a declaration of its own.
      const member = decl !== undefined && (ts.isPropertySignature(decl) || ts.isPropertyAssignment(decl) || ts.isPropertyDeclaration(decl));
      if (decl && ours.has(decl.getSourceFile().fileName) && !exported.has(s) && !(s.flags & ts.SymbolFlags.TypeParameter) && !member) {
        if (!problems.has(s.name)) problems.set(s.name, new Set());
        problems.get(s.name)!.add(where);
      }
    }
    ts.forEachChild(node, (child) => visitType(child, where));
  };
  const hidden = (m: ts.ClassElement | ts.TypeElement): boolean =>
    (m.name !== undefined && ts.isPrivateIdentifier(m.name)) ||
    (ts.canHaveModifiers(m) && (ts.getModifiers(m) ?? []).some((x) => x.kind === ts.SyntaxKind.PrivateKeyword || x.kind === ts.SyntaxKind.ProtectedKeyword));
  const visitDeclaration = (decl: ts.Declaration, name: string): void => {
    if (seen.has(decl)) return;
    seen.add(decl);
    if (ts.isClassDeclaration(decl) || ts.isInterfaceDeclaration(decl)) {
      for (const clause of decl.heritageClauses ?? []) for (const t of clause.types) visitType(t, `${name} (base)`);
      for (const m of decl.members as ts.NodeArray<ts.ClassElement | ts.TypeElement>) {
        if (!hidden(m)) visitType(m, `${name}.${m.name?.getText() ?? 'constructor'}`);
      }
    } else {
      visitType(decl, name);
    }
  };
  for (const source of entryFiles) {
    for (const e of checker.getExportsOfModule(checker.getSymbolAtLocation(source)!)) {
      for (const decl of resolve(e).declarations ?? []) visitDeclaration(decl, e.name);
    }
  }
  return [...problems].map(([type, where]) => `${type}: ${[...where].join(', ')}`).sort();
}
