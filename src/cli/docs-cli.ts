/** `npm run docs:cli`: writes the CLI reference (docs/cli.md) from the commands' help, and the operations guide's configuration table from src/config. */
import { join } from 'node:path';
import { projectRoot } from '../config/index.js';
import { writeConfigReference } from '../config/reference.js';
import { createProgram } from './program.js';
import { CLI_REFERENCE_FILE, writeReference } from './reference.js';

const program = createProgram({ out: () => undefined, err: () => undefined, env: {}, interactive: false });
const changed = writeReference(join(projectRoot, CLI_REFERENCE_FILE), program);
process.stdout.write(`${CLI_REFERENCE_FILE}: CLI reference ${changed ? 'rewritten' : 'up to date'}\n`);
const configChanged = writeConfigReference();
process.stdout.write(configChanged ? 'docs/operations.md: configuration table rewritten\n' : 'docs/operations.md: configuration table up to date\n');
