/**
 * Issue 10 §5: file names with quotes, semicolons, non-ASCII text or a newline survive upload and
 * download. The upload keeps every printable character (only controls, invisible formatting and path
 * segments go); the download sends an ASCII `filename` fallback and the exact name in `filename*`
 * (RFC 6266 / 8187), and no byte of the name can end the header.
 */
import test from 'ava';
import contentDisposition from 'content-disposition';
import { sharedTestApp, loginAs, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';

let app: TestApp;
let doctor: Client;

test.before(async () => {
  app = await sharedTestApp();
  doctor = await loginAs(app, 'doctor@demo.svc.local');
});

const PDF = Buffer.from('%PDF-1.4\nname test\n%%EOF\n');

/** Uploads as a browser does; `file_name` is Frappe's field that overrides the part's file name. */
async function upload(
  partName: string,
  fileName?: string,
): Promise<{ status: number; body: { message: { name: string; file_name: string; file_url: string } } }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(PDF)]), partName);
  form.append('is_private', '1');
  if (fileName !== undefined) form.append('file_name', fileName);
  const res = await fetch(`${app.url}/api/method/upload_file`, {
    method: 'POST',
    headers: { cookie: doctor.auth.cookie!, 'x-svc-csrf-token': doctor.auth.csrf! },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

async function disposition(fileUrl: string): Promise<string> {
  const res = await fetch(new URL(fileUrl, app.url), { headers: { cookie: doctor.auth.cookie! } });
  if (res.status !== 200) throw new Error(`download answered ${res.status}`);
  await res.arrayBuffer();
  return res.headers.get('content-disposition')!;
}

test('quotes, a semicolon and non-ASCII text survive upload and download', async (t) => {
  const name = 'Résumé "final"; 日本.pdf';
  const up = await upload('scan.pdf', name);
  t.is(up.status, 200);
  t.is(up.body.message.file_name, name);
  t.is(up.body.message.file_url, `/private/files/${up.body.message.name}/${encodeURIComponent(name)}`);
  const header = await disposition(up.body.message.file_url);
  t.regex(header, /^[\x20-\x7e]+$/, 'the header is plain ASCII');
  t.true(header.includes(`filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22%3B%20%E6%97%A5%E6%9C%AC.pdf`), header);
  t.true(header.startsWith('attachment; filename="Resume \\"final\\"; __.pdf"'), header);
  const parsed = contentDisposition.parse(header);
  t.is(parsed.type, 'attachment');
  t.is(parsed.parameters.filename, name, 'a client reading filename* gets the exact name');
});

test('a non-ASCII multipart file name (as a browser sends it) is kept', async (t) => {
  const up = await upload('Ärztebrief 日本.pdf');
  t.is(up.body.message.file_name, 'Ärztebrief 日本.pdf');
  t.is(contentDisposition.parse(await disposition(up.body.message.file_url)).parameters.filename, 'Ärztebrief 日本.pdf');
});

test('a newline cannot inject a header; path segments, bidi overrides and leading dots are dropped', async (t) => {
  const injected = await upload('x.pdf', 'evil\r\nSet-Cookie: sid=stolen\r\n.pdf');
  t.is(injected.body.message.file_name, 'evilSet-Cookie: sid=stolen.pdf');
  const res = await fetch(new URL(injected.body.message.file_url, app.url), { headers: { cookie: doctor.auth.cookie! } });
  t.is(res.status, 200);
  t.deepEqual(res.headers.getSetCookie(), []);
  t.is(contentDisposition.parse(res.headers.get('content-disposition')!).parameters.filename, 'evilSet-Cookie: sid=stolen.pdf');
  for (const [sent, stored] of [
    ['../../etc/passwd.pdf', 'passwd.pdf'],
    ['C:\\Users\\me\\scan.pdf', 'scan.pdf'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['..hidden.pdf', 'hidden.pdf'],
    ['\u0007\t', 'file'],
  ]) {
    t.is((await upload('x.pdf', sent)).body.message.file_name, stored, JSON.stringify(sent));
  }
});

test('a long name is cut at 140 characters, never inside a character', async (t) => {
  const up = await upload('x.pdf', `${'日'.repeat(139)}😀😀.pdf`);
  t.is(up.body.message.file_name, `${'日'.repeat(139)}😀`);
});
