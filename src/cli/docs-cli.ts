/** `npm run docs:cli`: writes the README's CLI reference from the commands' help, and the operations guide's configuration table from src/config. */
import { join } from 'node:path';
import { projectRoot } from '../config/index.js';
import { writeConfigReference } from '../config/reference.js';
import { createProgram } from './program.js';
import { writeReference } from './reference.js';

const program = createProgram({ out: () => undefined, err: () => undefined, env: {}, interactive: false });
const changed = writeReference(join(projectRoot, 'README.md'), program);
process.stdout.write(changed ? 'README.md: CLI reference rewritten\n' : 'README.md: CLI reference up to date\n');
const configChanged = writeConfigReference();
process.stdout.write(configChanged ? 'docs/operations.md: configuration table rewritten\n' : 'docs/operations.md: configuration table up to date\n');
