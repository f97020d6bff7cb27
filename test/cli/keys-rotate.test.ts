/**
 * `svc keys rotate` as ops run it: values sealed with key A (partner credentials,
 * patient fields, vendor webhook secrets, queued mail secrets, files on disk, and values sealed before
 * key ids existed) are re-sealed with key B while A is configured as SVC_ENCRYPTION_KEY_PREVIOUS. A run
 * stopped after N batches, or killed outright, leaves every value readable, and the next run goes on;
 * at the end every value reads with B alone and not with A, and a further run finds nothing. The run
 * killed outright is a child process (SIGKILL is its subject); the others run in this process through
 * run(argv, io), as the CLI's own code with the same environment.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { Cipher } from '../../src/shared/crypto.js';
import { cliDatabase, svc } from '../helpers/cli.js';
import { spawnSvc } from '../helpers/processes.js';

const database = cliDatabase(test);

// A: the test environment's own key, so what the template database holds sealed is under it too
const keyA = loadConfig({ SVC_ENV: 'test' }).encryptionKey;
const keyB = randomBytes(32).toString('base64');
const onlyA = new Cipher(keyA);
const onlyB = new Cipher(keyB);
const CREDENTIALS = 400;
const PATIENT = ['checkout_patient_first_name', 'checkout_patient_last_name', 'checkout_patient_dob', 'checkout_patient_gender'];
/** the Customer's patient demographics (issue 26), sealed like the order's */
const DEMOGRAPHICS = ['patient_first_name', 'patient_last_name', 'patient_date_of_birth', 'patient_gender'];
let filesDir: string;
let env: Record<string, string>;
/** every sealed value the test stored, by where it is, with its plain text */
const stored = new Map<string, string>();

/** A value as sealed before values carried a key id (the format without its last part). */
const legacy = (cipher: Cipher, plain: string) => cipher.encrypt(plain).replace(/:[0-9a-f]{8}$/, '');

async function seedColumns(): Promise<void> {
  for (let i = 0; i < CREDENTIALS; i++) {
    const plain = `secret-${i}`;
    const sealed = i % 10 === 0 ? legacy(onlyA, plain) : onlyA.encrypt(plain);
    // sealed values written as stored, some in the legacy format no service writes any more (here and below): the re-sealing is the subject
    await database.pg.query(`INSERT INTO partner_credentials (partner, field, value_enc, secret) VALUES ('keytest', $1, $2, true)`, [
      `f${String(i).padStart(4, '0')}`,
      sealed,
    ]);
    stored.set(`credential f${String(i).padStart(4, '0')}`, plain);
  }
  const orders = await database.pg.query<{ name: string }>('SELECT name FROM sales_orders ORDER BY name');
  for (const { name } of orders.rows) {
    const values = PATIENT.map((f) => `${f}-of-${name}`);
    await database.pg.query(`UPDATE sales_orders SET ${PATIENT.map((f, i) => `${f} = $${i + 2}`).join(', ')} WHERE name = $1`, [
      name,
      ...values.map((v) => onlyA.encrypt(v)),
    ]);
    PATIENT.forEach((f, i) => stored.set(`order ${name} ${f}`, values[i]));
  }
  const customers = await database.pg.query<{ name: string }>('SELECT name FROM customers ORDER BY name');
  for (const { name } of customers.rows) {
    const values = DEMOGRAPHICS.map((f) => `${f}-of-${name}`);
    await database.pg.query(`UPDATE customers SET ${DEMOGRAPHICS.map((f, i) => `${f} = $${i + 2}`).join(', ')} WHERE name = $1`, [
      name,
      ...values.map((v) => onlyA.encrypt(v)),
    ]);
    DEMOGRAPHICS.forEach((f, i) => stored.set(`customer ${name} ${f}`, values[i]));
  }
  const vendors = await database.pg.query<{ name: string }>('UPDATE vendor_profiles SET webhook_secret_enc = $1 RETURNING name', [onlyA.encrypt('whsec')]);
  for (const { name } of vendors.rows) stored.set(`vendor ${name}`, 'whsec');
  for (let i = 0; i < 20; i++) {
    const payload = { to: 'a@example.com', sealed: { token: onlyA.encrypt(`token-${i}`), code: legacy(onlyA, `code-${i}`) } };
    const { rows } = await database.pg.query<{ id: string }>(
      `INSERT INTO outbox (kind, topic, target, payload, status) VALUES ('email', 'mail', 'a@example.com', $1, 'done') RETURNING id`,
      [JSON.stringify(payload)],
    );
    stored.set(`mail ${rows[0].id} token`, `token-${i}`);
    stored.set(`mail ${rows[0].id} code`, `code-${i}`);
  }
}

async function seedFiles(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const key = `f-keytest${i}.enc`;
    await writeFile(join(filesDir, key), onlyA.encrypt(Buffer.from(`file content ${i}`)));
    await database.pg.query(
      `INSERT INTO files (name, file_name, content_type, file_size, content_hash, storage_key, owner_type, owner_id) VALUES ($1, 'x.pdf', 'application/pdf', 14, 'h', $2, 'user', 'u')`,
      [`f-keytest${i}`, key],
    );
    stored.set(`file ${key}`, `file content ${i}`);
  }
}

/** Every value the test stored, as it is now, with where it is. */
async function sealedNow(): Promise<Map<string, string>> {
  const now = new Map<string, string>();
  const creds = await database.pg.query<{ field: string; value_enc: string }>(`SELECT field, value_enc FROM partner_credentials WHERE partner = 'keytest'`);
  for (const r of creds.rows) now.set(`credential ${r.field}`, r.value_enc);
  const orders = await database.pg.query<Record<string, string>>(`SELECT name, ${PATIENT.join(', ')} FROM sales_orders`);
  for (const r of orders.rows) for (const f of PATIENT) now.set(`order ${r.name} ${f}`, r[f]);
  const customers = await database.pg.query<Record<string, string>>(`SELECT name, ${DEMOGRAPHICS.join(', ')} FROM customers`);
  for (const r of customers.rows) for (const f of DEMOGRAPHICS) now.set(`customer ${r.name} ${f}`, r[f]);
  const vendors = await database.pg.query<{ name: string; webhook_secret_enc: string }>('SELECT name, webhook_secret_enc FROM vendor_profiles');
  for (const r of vendors.rows) now.set(`vendor ${r.name}`, r.webhook_secret_enc);
  const mail = await database.pg.query<{ id: string; payload: { sealed: Record<string, string> } }>(`SELECT id, payload FROM outbox WHERE kind = 'email'`);
  for (const r of mail.rows) for (const [k, v] of Object.entries(r.payload.sealed)) now.set(`mail ${r.id} ${k}`, v);
  for (const name of (await readdir(filesDir)).filter((n) => n.endsWith('.enc'))) now.set(`file ${name}`, await readFile(join(filesDir, name), 'utf8'));
  return now;
}

/** Asserts every stored value reads back with `reader`, and answers how many are sealed with B (by key id). */
async function readableWith(t: { is: (a: unknown, b: unknown, m?: string) => void }, reader: Cipher): Promise<number> {
  const now = await sealedNow();
  t.is(now.size, stored.size, 'every value is still there');
  let underB = 0;
  for (const [where, plain] of stored) {
    t.is(reader.decrypt(now.get(where)!), plain, where);
    if (!onlyB.isStale(now.get(where)!)) underB += 1;
  }
  return underB;
}

/** `svc keys rotate <args>`: what it printed; a run that fails (exit code not 0) fails the test. */
const rotate = async (args: string[]) => {
  const res = await svc(['keys', 'rotate', ...args], env);
  if (res.code !== 0) throw new Error(`svc keys rotate ${args.join(' ')} exited with ${res.code}: ${res.stderr}`);
  return res.stdout;
};
const resealed = (stdout: string) => Number(/Re-sealed (\d+) values/.exec(stdout)?.[1]);

// seeded by the first test: ava runs before hooks at once, and the database comes from cliDatabase's
test.serial('the values sealed with A are stored', async (t) => {
  filesDir = await mkdtemp(join(tmpdir(), 'svc-keys-'));
  env = {
    SVC_ENV: 'test',
    SVC_LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    SVC_FILES_DIR: filesDir,
    SVC_ENCRYPTION_KEY: keyB,
    SVC_ENCRYPTION_KEY_PREVIOUS: keyA,
  };
  await seedColumns();
  await seedFiles();
  t.is(await readableWith(t, onlyA), 0);
});
test.after.always(async () => {
  if (filesDir) await rm(filesDir, { recursive: true, force: true });
});

test.serial('--dry-run counts every value not sealed with the new key, per store, and changes nothing', async (t) => {
  const before = await sealedNow();
  const out = await rotate(['--dry-run', '--json']);
  const doc = JSON.parse(out) as { values: number; key_id: string; stores: { store: string; values: number }[] };
  t.is(doc.values, stored.size);
  t.is(doc.key_id, onlyB.keyId);
  t.is(doc.stores.find((s) => s.store === 'partner credentials')?.values, CREDENTIALS);
  t.is(doc.stores.find((s) => s.store === 'files')?.values, 3);
  t.deepEqual(await sealedNow(), before);
});

test.serial('svc check warns while values are under the previous key', async (t) => {
  const res = await svc(['check', '--json'], env);
  const found = (JSON.parse(res.stdout) as { findings: { check: string; level: string; detail: string }[] }).findings.find((f) => f.check === 'encryption key');
  t.is(found?.level, 'warn');
  t.regex(found!.detail, new RegExp(`^${stored.size} values still sealed with the previous key \\(partner credentials ${CREDENTIALS},`));
});

test.serial('stopped after N batches: exactly those rows re-sealed, every value readable with both keys', async (t) => {
  const out = await rotate(['--batch-size', '25', '--max-batches', '3']);
  t.regex(out, /^partner credentials: batch 1, 25 re-sealed \(25 so far\)$/m);
  t.regex(out, /^partner credentials: batch 3, 25 re-sealed \(75 so far\)$/m);
  t.regex(out, /Stopped after 3 batches \(--max-batches\): run svc keys rotate again to go on/);
  t.is(resealed(out), 75);
  t.is(await readableWith(t, new Cipher(keyB, [keyA])), 75);
});

test.serial('killed outright mid-way: every value still readable; the next run finishes; then B alone reads all and A none', async (t) => {
  const child = await spawnSvc(['keys', 'rotate', '--batch-size', '5'], env, /partner credentials: batch 3,/);
  await child.stop('SIGKILL');
  const underB = await readableWith(t, new Cipher(keyB, [keyA]));
  t.true(underB >= 75 + 15 && underB < stored.size, String(underB));

  const out = await rotate(['--batch-size', '50']);
  t.is(resealed(out), stored.size - underB);
  t.is(await readableWith(t, onlyB), stored.size);
  for (const [where, sealed] of await sealedNow()) if (stored.has(where)) t.throws(() => onlyA.decrypt(sealed), undefined, where);
});

test.serial('a further run re-seals nothing; svc check then says the previous key can go', async (t) => {
  t.is(resealed(await rotate([])), 0);
  t.deepEqual(JSON.parse(await rotate(['--json'])), { key_id: onlyB.keyId, resealed: 0, batches: 0, complete: true, unreadable: [] });
  t.regex(await rotate(['--dry-run']), /^0 values would be re-sealed with the current key/m);
  const res = await svc(['check', '--json'], env);
  const found = (JSON.parse(res.stdout) as { findings: { check: string; level: string; detail: string }[] }).findings.find((f) => f.check === 'encryption key');
  t.is(found?.level, 'ok');
  t.regex(found!.detail, /SVC_ENCRYPTION_KEY_PREVIOUS can be removed/);
});
