import { constants } from 'node:fs';
import { access, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type nodemailerModule from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type StreamTransport from 'nodemailer/lib/stream-transport/index.js';
import type { parseConnectionUrl as parseUrl } from 'nodemailer/lib/shared/index.js';
import { enqueue, type OutboxEntry, type OutboxHandler, type OutboxRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { projectRoot } from '../config/index.js';
import type { Tx } from '../db/sequelize.js';

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  /** A short tag for logs and lists (e.g. order-confirmation). */
  category?: string;
  /**
   * Secrets the message carries (a one-time token): `{{secret:name}}` in text and html stands for
   * `secrets[name]`. They are stored sealed with the service key in the outbox row and put in only
   * when the message is sent, so the row at rest holds no usable secret.
   */
  secrets?: Record<string, string>;
}

/** The payload of a queued e-mail: the message with its secrets sealed (never in plain text). */
interface QueuedMail extends Omit<MailMessage, 'secrets'> {
  sealed?: Record<string, string>;
}

const SECRET_SLOT = /\{\{secret:([A-Za-z0-9_]+)\}\}/g;

/** The text with each `{{secret:name}}` replaced by its unsealed value (an unknown name is an error, never a silent blank). */
function unseal(text: string | undefined, sealed: Record<string, string> | undefined): string | undefined {
  if (text === undefined) return undefined;
  return text.replace(SECRET_SLOT, (_m, name: string) => {
    const value = sealed?.[name];
    if (value === undefined) throw new Error(`mail secret ${name} is missing`);
    return runtime().cipher.decrypt(value);
  });
}

/** The outbox row of an e-mail, for callers that enqueue it with their other side effects in one statement. */
export function mailEntry(message: MailMessage): OutboxEntry {
  const { secrets, ...rest } = message;
  const payload: QueuedMail = rest;
  if (secrets) {
    const { cipher } = runtime();
    payload.sealed = Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, cipher.encrypt(value)]));
  }
  return { kind: 'email', topic: message.category ?? 'mail', target: [message.to].flat().join(','), payload, maxAttempts: 5 };
}

/** Queues an e-mail in the caller's transaction; the worker sends it (outbox kind `email`). */
export async function queueMail(transaction: Tx, message: MailMessage): Promise<{ delivery_id: string }> {
  const [row] = await enqueue(transaction, mailEntry(message));
  return row;
}

// nodemailer loads when mail is sent or checked: the processes that only queue it (the API, the
// CLI, most test files) would pay for it at start-up otherwise
const load = createRequire(import.meta.url);
const nodemailer = () => load('nodemailer') as typeof nodemailerModule;
const parseConnectionUrl = (url: string) => (load('nodemailer/lib/shared/index.js') as { parseConnectionUrl: typeof parseUrl }).parseConnectionUrl(url);

let transport: { key: string; transporter: Transporter<SMTPTransport.SentMessageInfo> } | undefined;
// builds the .eml of a message when there is no SMTP server (stateless: one serves every message)
let fileBuilder: Transporter<StreamTransport.SentMessageInfo> | undefined;

/**
 * SMTP_URL's options with the service's time limits for connecting, the greeting and any silence
 * (nodemailer's own are 2 min, 30 s and 10 min: a server that stops answering would hold an attempt
 * past its worker lease, and another worker would send the message again). A limit named in the
 * URL's query (`?socketTimeout=…`) is kept.
 */
export function smtpOptions(url: string, timeoutMs: number): SMTPTransport.Options {
  return { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs, ...parseConnectionUrl(url) };
}

/** What went wrong with the SMTP server, for the attempt log and `svc check` (its host only: never the URL's login). */
function smtpProblem(url: string, timeoutMs: number, err: unknown): string {
  const { message, code } = err as Error & { code?: string };
  // nodemailer says only "Timeout" when the socket falls silent: say which limit it was
  const waited = code === 'ETIMEDOUT' ? ` (no answer within ${timeoutMs} ms, SVC_MAIL_TIMEOUT_MS)` : '';
  return `SMTP server ${new URL(url).host}: ${message}${waited}`;
}

function smtpTransport(url: string, timeoutMs: number): Transporter<SMTPTransport.SentMessageInfo> {
  const key = `${timeoutMs} ${url}`;
  if (transport?.key !== key) {
    transport?.transporter.close();
    transport = { key, transporter: nodemailer().createTransport(smtpOptions(url, timeoutMs)) };
  }
  return transport.transporter;
}

/** Sends one queued message: SMTP when SMTP_URL is set, else an .eml file under the mail folder. */
async function sendMail(row: OutboxRow): Promise<{ ok: boolean; error?: string; excerpt?: string }> {
  const { config, logger } = runtime();
  const msg = row.payload as unknown as QueuedMail;
  // The delivery id doubles as Message-ID, so a repeat after a crash can be dropped by the receiver.
  const mail = {
    from: config.mailFrom,
    to: msg.to,
    subject: msg.subject,
    text: unseal(msg.text, msg.sealed),
    html: unseal(msg.html, msg.sealed),
    messageId: `<${row.delivery_id}@svc>`,
  };
  if (config.smtpUrl) {
    let info: SMTPTransport.SentMessageInfo;
    try {
      info = await smtpTransport(config.smtpUrl, config.mailTimeoutMs).sendMail(mail);
    } catch (err) {
      return { ok: false, error: smtpProblem(config.smtpUrl, config.mailTimeoutMs, err) };
    }
    logger.info({ outboxId: row.id, category: msg.category, messageId: info.messageId }, `mail sent: ${msg.subject}`);
    return { ok: true, excerpt: String(info.response ?? '').slice(0, 200) };
  }
  fileBuilder ??= nodemailer().createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const built = await fileBuilder.sendMail(mail);
  const dir = resolve(projectRoot, config.mailDir);
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${row.delivery_id}.eml`);
  await writeFile(file, built.message as Buffer, { mode: 0o600 });
  logger.info({ outboxId: row.id, category: msg.category, file }, `mail written: ${msg.subject}`);
  return { ok: true, excerpt: file };
}

/** The outbox handler of e-mail (registered in src/modules.ts). */
export const mailHandler: OutboxHandler = {
  kind: 'email',
  run: sendMail,
  retryDelaySeconds: (next) => 60 * 2 ** (next - 2),
};

/**
 * Whether mail can leave (`svc check`): with SMTP_URL, the server answers and accepts the login
 * (nodemailer's verify, 10 s at most); without it, the mail folder is writable.
 */
export async function verifyMailTransport(config: { smtpUrl?: string; mailDir: string; mailTimeoutMs: number }): Promise<{ ok: boolean; detail: string }> {
  if (config.smtpUrl) {
    const host = new URL(config.smtpUrl).host;
    const probe = nodemailer().createTransport(smtpOptions(config.smtpUrl, Math.min(config.mailTimeoutMs, 10_000)));
    try {
      await probe.verify();
      return { ok: true, detail: `SMTP server ${host} answers` };
    } catch (err) {
      return { ok: false, detail: smtpProblem(config.smtpUrl, Math.min(config.mailTimeoutMs, 10_000), err) };
    } finally {
      probe.close();
    }
  }
  const dir = resolve(projectRoot, config.mailDir);
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    return { ok: true, detail: `no SMTP_URL: mail is written as .eml files to ${dir}` };
  } catch (err) {
    return { ok: false, detail: `mail folder ${dir} is not writable: ${(err as Error).message}` };
  }
}
