// ESLint rule `svc/file-cycles`: no file of src/ reaches itself again through its imports, type-only
// imports, `import()` and `declare module` augmentations included. import-x/no-cycle passes over
// type-only imports, and a cycle of types still ties the files' layers together (the one the models
// closed ran db → a domain's model → its types → … → db). The imports are read as in svc/domain-cycles.
import { relative, sep } from 'node:path';
import { importsOf, pathBetween, refsOnDisk, walk } from './domain-cycles.js';

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles between the files of src/ (type-only imports included).' },
    schema: [{ type: 'object', properties: { root: { type: 'string' } }, required: ['root'], additionalProperties: false }],
    messages: { cycle: 'Import cycle: {{cycle}}.' },
  },
  create(context) {
    const { root } = context.options[0];
    const self = relative(root, context.physicalFilename).split(sep).join('/');
    if (!self.startsWith('src/') || !self.endsWith('.ts')) return {};
    return {
      'Program:exit'() {
        // this file as the editor holds it, every other file as saved
        const mine = importsOf(self, context.sourceCode.text);
        const graph = new Map();
        const files = walk(root, 'src');
        for (const path of files) {
          const refs = path === self ? mine : refsOnDisk(root, path);
          graph.set(path, new Map(refs.filter((r) => r.target.startsWith('src/')).map((r) => [r.target, r])));
        }
        for (const ref of mine) {
          if (!graph.has(ref.target) || ref.target === self) continue;
          const back = pathBetween(graph, ref.target, self);
          if (back) context.report({ loc: { line: ref.line, column: 0 }, messageId: 'cycle', data: { cycle: [self, ...back].join(' → ') } });
        }
      },
    };
  },
};
