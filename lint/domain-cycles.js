// ESLint rule `svc/domain-cycles`: the domain folders of src/ import each other without a cycle.
// import-x/no-cycle follows files, and two domains can import each other through different files
// without any file cycle (orders/a.ts → vendors/b.ts, vendors/c.ts → orders/d.ts), so this rule
// draws the folder graph of test/architecture/boundaries.test.ts: every import of a src/ file,
// type-only, dynamic and `declare module` augmentations included, read with TypeScript's parser.
import ts from 'typescript';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

/** project-relative path → { mtimeMs, refs }: a long-lived editor server re-reads only what changed. */
const parsed = new Map();

export function walk(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return walk(root, path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The local imports of one file: { target (project-relative .ts path), line }. */
export function importsOf(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const refs = [];
  const add = (node, specifier) => {
    if (!specifier || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith('.')) return;
    const target = posix.normalize(posix.join(posix.dirname(path), specifier.text)).replace(/\.js$/, '.ts');
    refs.push({ target, line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node, node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal);
    else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) add(node, node.name);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return refs;
}

export function refsOnDisk(root, path) {
  const mtimeMs = statSync(join(root, path)).mtimeMs;
  const cached = parsed.get(path);
  if (cached?.mtimeMs === mtimeMs) return cached.refs;
  const refs = importsOf(path, readFileSync(join(root, path), 'utf8'));
  parsed.set(path, { mtimeMs, refs });
  return refs;
}

/** Domain folder → domain folder → the first import (by file name) that makes the edge. */
function domainGraph(files, domainOf) {
  const graph = new Map();
  for (const { path, refs } of files) {
    const a = domainOf(path);
    if (!a) continue;
    for (const ref of refs) {
      const b = domainOf(ref.target);
      if (!b || b === a) continue;
      if (!graph.has(a)) graph.set(a, new Map());
      if (!graph.get(a).has(b)) graph.get(a).set(b, { from: path, ...ref });
    }
  }
  return graph;
}

/** The shortest folder path from `start` to `goal` (breadth first), or undefined. */
export function pathBetween(graph, start, goal) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift();
    if (node === goal) {
      const path = [];
      for (let n = goal; n !== undefined; n = previous.get(n)) path.unshift(n);
      return path;
    }
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles between the domain folders of src/ (type-only imports included).' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, notDomains: { type: 'array', items: { type: 'string' } } },
        required: ['root', 'notDomains'],
        additionalProperties: false,
      },
    ],
    messages: { cycle: 'Import cycle between domain folders: {{cycle}} (back via {{back}}).' },
  },
  create(context) {
    const { root, notDomains } = context.options[0];
    const self = relative(root, context.physicalFilename).split(sep).join('/');
    const domainOf = (path) => {
      const parts = path.split('/');
      return parts[0] === 'src' && parts.length > 2 && !notDomains.includes(parts[1]) ? parts[1] : undefined;
    };
    const here = domainOf(self);
    if (!here) return {};
    return {
      'Program:exit'() {
        // this file as the editor holds it, every other file as saved
        const mine = importsOf(self, context.sourceCode.text);
        const files = walk(root, 'src')
          .filter((path) => path !== self)
          .map((path) => ({ path, refs: refsOnDisk(root, path) }));
        const graph = domainGraph(
          [...files, { path: self, refs: mine }].sort((x, y) => x.path.localeCompare(y.path)),
          domainOf,
        );
        for (const ref of mine) {
          const there = domainOf(ref.target);
          if (!there || there === here) continue;
          const back = pathBetween(graph, there, here);
          if (!back) continue;
          const edges = back.slice(1).map((to, k) => graph.get(back[k]).get(to));
          context.report({
            loc: { line: ref.line, column: 0 },
            messageId: 'cycle',
            data: { cycle: [here, ...back].join(' → '), back: edges.map((e) => `${e.from}:${e.line}`).join(', ') },
          });
        }
      },
    };
  },
};
