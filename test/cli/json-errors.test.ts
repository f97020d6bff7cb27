/**
 * With --json, an error is a document on stdout too, `{"error":{"type","message"}}`, and a non-zero
 * exit; the line on stderr stays. Over usage errors, a service's refusal and a command's own error.
 */
import test from 'ava';
import { cliDatabase, svc } from '../helpers/cli.js';

const database = cliDatabase(test);

const cases: [string[], number, string, RegExp][] = [
  [['vendor', 'settings', 'VEN-00001', '--auto-approve', 'maybe', '--json'], 2, 'UsageError', /--auto-approve.*must be one of: yes, no/],
  [['user', 'list', '--json', '--bogus'], 2, 'UsageError', /unknown option '--bogus'/],
  [['vendor', 'approve', 'VEN-99999', '--json'], 1, 'DoesNotExistError', /VEN-99999/],
  [['user', 'list', '--json', '--as', 'nobody@nowhere.example'], 1, 'Error', /--as nobody@nowhere\.example: no enabled user/],
  [['customer', 'show', 'CUST-9999', '--json'], 1, 'DoesNotExistError', /CUST-9999/],
];

for (const [argv, code, type, message] of cases)
  test.serial(`svc ${argv.join(' ')}: the error as JSON on stdout, exit ${code}`, async (t) => {
    const res = await svc(argv, { DATABASE_URL: database.url, USER: 'carol' });
    t.is(res.code, code, res.stderr);
    const doc = JSON.parse(res.stdout) as { error: { type: string; message: string } };
    t.deepEqual(Object.keys(doc), ['error']);
    t.is(doc.error.type, type);
    t.regex(doc.error.message, message);
    t.regex(res.stderr, /^error: /);
  });

test.serial('without --json an error prints nothing on stdout', async (t) => {
  const res = await svc(['vendor', 'approve', 'VEN-99999'], { DATABASE_URL: database.url, USER: 'carol' });
  t.is(res.code, 1);
  t.deepEqual(res.out, []);
});
