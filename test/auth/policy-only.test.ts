/**
 * The policy module is the only place that decides (issue 11). Outside src/auth/policy (the role
 * list in src/users/roles.ts and the actor's identity in src/auth/actor.ts aside) no source file names a role, reads an actor's roles, calls the
 * role helpers, or compares an actor's type: a new hand-written role check fails here. Ask the
 * policy a named question instead (canReadPatientData, permission('Product Review', 'review'), …).
 */
import test from 'ava';
import ts from 'typescript';
import { ROLES } from '../../src/auth/actor.js';
import { lineOf, nodesOf, sources, type Source } from '../helpers/sources.js';

const POLICY_HOME = (path: string) => path.startsWith('src/auth/policy/') || path === 'src/auth/actor.ts' || path === 'src/users/roles.ts';
const ROLE_NAMES = new Set<string>(ROLES);
const ACTOR_TYPES = new Set(['user', 'vendor', 'system']);
/** Calls whose string arguments name a resource (a document type), never a role: 'Customer' is both. */
const RESOURCE_CALLS = new Set(['authorize', 'can', 'scopeOf', 'permission', 'policyOf', 'definePolicy', 'registerDocType', 'docType', 'describeDocTypeInput']);
const RESOURCE_KEYS = new Set(['name', 'doctype', 'object_type', 'resource', 'policy']);

function calleeName(call: ts.CallExpression): string | undefined {
  const e = call.expression;
  return ts.isIdentifier(e) ? e.text : ts.isPropertyAccessExpression(e) ? e.name.text : undefined;
}

/** A string that names a resource (`name: 'Customer'` in a doc type, an argument of authorize(…)), not a role. */
function namesResource(literal: ts.StringLiteralLike): boolean {
  const parent = literal.parent;
  if (ts.isPropertyAssignment(parent) && parent.initializer === literal) return RESOURCE_KEYS.has(parent.name.getText());
  return ts.isCallExpression(parent) && parent.arguments.includes(literal) && RESOURCE_CALLS.has(calleeName(parent) ?? '');
}

/** Array reads that answer a question about the roles (join and map only print them). */
const ROLE_QUERIES = new Set(['includes', 'some', 'every', 'indexOf', 'find', 'findIndex', 'filter', 'length']);

/** Is `node` an actor's `.roles` read to decide something: roles.includes(…), roles.some(…), roles[0], roles.length, …? */
function readsRoles(node: ts.Node): boolean {
  if (!ts.isPropertyAccessExpression(node) || node.name.text !== 'roles') return false;
  const parent = node.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.expression === node && ROLE_QUERIES.has(parent.name.text)) ||
    (ts.isElementAccessExpression(parent) && parent.expression === node)
  );
}

/** `x.type === 'vendor'` and the like (either side, any equality operator). */
function comparesActorType(node: ts.Node): boolean {
  if (!ts.isBinaryExpression(node)) return false;
  const op = node.operatorToken.kind;
  if (
    ![
      ts.SyntaxKind.EqualsEqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsEqualsToken,
      ts.SyntaxKind.EqualsEqualsToken,
      ts.SyntaxKind.ExclamationEqualsToken,
    ].includes(op)
  )
    return false;
  const isType = (e: ts.Expression) => ts.isPropertyAccessExpression(e) && e.name.text === 'type';
  const isActorType = (e: ts.Expression) => ts.isStringLiteralLike(e) && ACTOR_TYPES.has(e.text);
  return (isType(node.left) && isActorType(node.right)) || (isType(node.right) && isActorType(node.left));
}

/** Every decision-shaped construct of a file, as "path:line what". */
function decisionsIn(src: Source): string[] {
  const found: string[] = [];
  for (const node of nodesOf(src.file)) {
    const at = () => `${src.path}:${lineOf(node)}`;
    if (ts.isStringLiteralLike(node) && ROLE_NAMES.has(node.text) && !namesResource(node)) found.push(`${at()} names the role '${node.text}'`);
    else if (readsRoles(node)) found.push(`${at()} reads an actor's roles (${node.parent.getText().slice(0, 60)})`);
    else if (ts.isCallExpression(node) && ['hasRole', 'isAdmin'].includes(calleeName(node) ?? '')) found.push(`${at()} calls ${calleeName(node)}()`);
    else if (comparesActorType(node)) found.push(`${at()} compares an actor's type (${node.getText().slice(0, 60)})`);
  }
  return found;
}

function parse(path: string, text: string): Source {
  return { path, file: ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true) };
}

test('outside src/auth/policy, no source file decides by role or actor type', (t) => {
  const all = sources('src');
  t.true(all.filter((s) => POLICY_HOME(s.path)).length >= 6, 'the policy module is read too');
  t.deepEqual(all.filter((s) => !POLICY_HOME(s.path)).flatMap(decisionsIn), []);
  // the rules themselves do decide: the check sees them (it is not blind)
  t.true(all.filter((s) => s.path.startsWith('src/auth/policy/')).flatMap(decisionsIn).length > 20);
});

test('the check catches the hand-written role checks it exists for, and lets resource names pass', (t) => {
  const caught = decisionsIn(
    parse(
      'src/x/x.service.ts',
      `
    if (actor.roles.includes('Customer')) allow();
    const STAFF = ['Operations', 'Sales Rep'];
    if (actor.type === 'vendor') deny();
    if ('system' !== actor.type) deny();
    if (hasRole(actor, ...STAFF)) allow();
    const first = actor.roles[0];
    route({ roles: ['Marketplace Admin'] });
  `,
    ),
  );
  t.deepEqual(
    caught.map((c) => c.replace(/^src\/x\/x\.service\.ts:\d+ /, '').split(' (')[0]),
    [
      "reads an actor's roles",
      "names the role 'Customer'",
      "names the role 'Operations'",
      "names the role 'Sales Rep'",
      "compares an actor's type",
      "compares an actor's type",
      'calls hasRole()',
      "reads an actor's roles",
      "names the role 'Marketplace Admin'",
    ],
  );
  t.deepEqual(
    decisionsIn(
      parse(
        'src/x/x.doctypes.ts',
        `
    registerDocType({ name: 'Customer', from: 'customers t' });
    authorize(actor, 'read', 'Customer');
    recordAudit(tx, actor, { object_type: 'Customer' });
    log('Customer portal'); // a sentence, not a role
    io.out(created.roles.join(', ')); // printed, not decided
  `,
      ),
    ),
    [],
  );
});
