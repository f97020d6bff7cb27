/** Shared helpers of the vendor interface tests: demo vendors, tokens, bearer clients. */
import type pg from 'pg';
import { DEMO_VENDORS } from '../../seeds/vendor.seed.js';
import { Client, type HttpResponse } from '../helpers/http.js';

export type DemoVendor = (typeof DEMO_VENDORS)[number];
export const MEDI = DEMO_VENDORS[0];
export const RX = DEMO_VENDORS[1];
export const SUSP = DEMO_VENDORS[2];
export const SEP = DEMO_VENDORS[3];

export const V1 = '/api/method/svc.api.v1.';

export async function tokenFor(app: { url: string }, v: { client_id: string; client_secret: string }): Promise<string> {
  const res = await new Client(app.url).post(`${V1}auth.token`, { client_id: v.client_id, client_secret: v.client_secret });
  if (res.status !== 200) throw new Error(`auth.token ${v.client_id}: ${res.status} ${res.text}`);
  return res.body.message.access_token as string;
}

/** A client carrying a fresh bearer token of the vendor. */
export async function vendorClient(app: { url: string }, v: { client_id: string; client_secret: string }): Promise<Client> {
  return new Client(app.url, { bearer: await tokenFor(app, v) });
}

export function v1(client: Client, fn: string, body: unknown = {}, headers?: Record<string, string>): Promise<HttpResponse> {
  return client.post(`${V1}${fn}`, body, headers);
}

export async function one<T = Record<string, unknown>>(db: pg.Client, sql: string, params: unknown[] = []): Promise<T> {
  return (await db.query(sql, params)).rows[0] as T;
}

export async function count(db: pg.Client, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await db.query(sql, params)).rows[0].n);
}
