/**
 * The measures of architecture.test.ts, on TypeScript's own parse of the source: what a file
 * imports, the import circles of a graph, the imports running back up, the long functions.
 */
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';

/** A parsed source file, its path relative to src/. */
export interface ParsedFile {
  path: string;
  ast: ts.SourceFile;
}

/** The files of src/ `file` imports (static, type-only, re-exports and dynamic `import()`). */
export function importsOf(file: ParsedFile): string[] {
  const found = new Set<string>();
  const add = (specifier: ts.Expression | undefined) => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return;
    if (!specifier.text.startsWith('.')) return;
    found.add(
      normalize(join(dirname(file.path), specifier.text))
        .split('\\')
        .join('/'),
    );
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal as ts.Expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return [...found];
}

/** Every import circle, each once, as the path around it (`a.ts > b.ts > a.ts`). */
export function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  // Tarjan's strongly connected components: a component of more than one file (or a file that
  // imports itself) holds a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let popped: string;
    do {
      popped = stack.pop()!;
      onStack.delete(popped);
      component.push(popped);
    } while (popped !== file);
    const selfImport = graph.get(file)?.includes(file) ?? false;
    if (component.length > 1 || selfImport) circles.push(circlePath(graph, component));
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return circles;
}

/** One way around a component, from its first file back to it, for the failure message. */
function circlePath(graph: ReadonlyMap<string, readonly string[]>, component: string[]): string {
  const members = new Set(component);
  const start = [...component].sort()[0]!;
  const path = [start];
  const seen = new Set([start]);
  let at = start;
  for (let step = 0; step < component.length; step += 1) {
    const targets = (graph.get(at) ?? []).filter((to) => members.has(to));
    const onward = targets.find((to) => !seen.has(to));
    if (onward === undefined || targets.includes(start)) break;
    path.push(onward);
    seen.add(onward);
    at = onward;
  }
  return [...path, start].join(' > ');
}

/** Imports from a lower floor to a higher one (`rank`: a file's floor, lowest 0), as `from -> to`. */
export function backUpImports(
  graph: ReadonlyMap<string, readonly string[]>,
  rank: (path: string) => number,
): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (rank(to) > rank(from)) found.push(`${from} -> ${to}`);
    }
  }
  return found.sort();
}

/** Functions (declarations, expressions, arrows, methods) longer than `max` lines. */
export function longFunctions(file: ParsedFile, max: number): string[] {
  const found: string[] = [];
  const lineOf = (pos: number) => file.ast.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(file.ast)) + 1;
      if (lines > max)
        found.push(`${file.path}:${lineOf(node.getStart(file.ast)) + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file.ast);
  return found;
}

export function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}
