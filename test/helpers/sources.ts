/**
 * The TypeScript sources of the project, parsed for the structure tests (layers, the policy's
 * monopoly): syntax only, no type check, so a whole src/ takes a fraction of a second.
 */
import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { projectRoot } from '../../src/config/index.js';

export interface Source {
  /** project-relative, with forward slashes: src/auth/policy/index.ts */
  path: string;
  file: ts.SourceFile;
}

export interface ImportRef {
  /** the importing file */
  from: string;
  /** a project-relative .ts path for a relative specifier, else the package name */
  target: string;
  line: number;
  /** `import type` / `export type` (erased at run time, still a dependency of the source) */
  typeOnly: boolean;
  /** `import('…')`: loaded when called, not with the importing module */
  dynamic: boolean;
}

function walkDir(dir: string): string[] {
  return readdirSync(join(projectRoot, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return walkDir(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every .ts file under `dir` (project-relative), parsed. */
export function sources(dir = 'src'): Source[] {
  return walkDir(dir)
    .sort()
    .map((path) => ({ path, file: ts.createSourceFile(path, readFileSync(join(projectRoot, path), 'utf8'), ts.ScriptTarget.ES2022, true) }));
}

export function lineOf(node: ts.Node): number {
  return node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
}

function resolveSpecifier(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
}

/** The import, re-export and dynamic import statements of a file. */
export function importsOf(src: Source): ImportRef[] {
  const refs: ImportRef[] = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean, dynamic: boolean) => {
    if (specifier && ts.isStringLiteralLike(specifier))
      refs.push({ from: src.path, target: resolveSpecifier(src.path, specifier.text), line: lineOf(node), typeOnly, dynamic });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, Boolean(node.importClause?.isTypeOnly), false);
    else if (ts.isExportDeclaration(node)) add(node, node.moduleSpecifier, node.isTypeOnly, false);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0], false, true);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal, true, true);
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) add(node, node.name, true, false); // declare module '…' (augmentation)
    ts.forEachChild(node, visit);
  };
  visit(src.file);
  return refs;
}

/** Every node of a file, depth first. */
export function* nodesOf(file: ts.SourceFile): Generator<ts.Node> {
  const stack: ts.Node[] = [file];
  while (stack.length) {
    const node = stack.pop()!;
    yield node;
    const children: ts.Node[] = [];
    ts.forEachChild(node, (c) => void children.push(c));
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}
