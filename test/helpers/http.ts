/** A small HTTP client over real loopback HTTP (fetch), with session cookies and CSRF. */

/**
 * A JSON answer of the service, read by a test that asserts on its shape (the spec's, checked by the
 * assertions); a test that wants types names them: client.get<{ message: Row[] }>(…).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one `any` of the tests: what they assert on (docs/decisions.md)
export type Json = any;

export interface HttpResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ClientAuth {
  token?: string; // "key:secret"
  bearer?: string;
  cookie?: string;
  csrf?: string;
  headers?: Record<string, string>;
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly auth: ClientAuth = {},
  ) {}

  with(auth: ClientAuth): Client {
    return new Client(this.baseUrl, { ...this.auth, ...auth });
  }

  async request<T = Json>(
    method: string,
    path: string,
    opts: {
      json?: unknown;
      form?: Record<string, string>;
      query?: Record<string, unknown>;
      headers?: Record<string, string>;
      raw?: string | Buffer;
      csrf?: boolean;
    } = {},
  ): Promise<HttpResponse<T>> {
    const url = new URL(path.replace(/ /g, '%20'), this.baseUrl);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    const headers: Record<string, string> = { accept: 'application/json', ...(this.auth.headers ?? {}), ...(opts.headers ?? {}) };
    if (this.auth.token) headers.authorization = `token ${this.auth.token}`;
    if (this.auth.bearer) headers.authorization = `Bearer ${this.auth.bearer}`;
    if (this.auth.cookie) headers.cookie = this.auth.cookie;
    if (this.auth.csrf && opts.csrf !== false && method !== 'GET') headers['x-svc-csrf-token'] = this.auth.csrf;
    let body: string | Buffer | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    } else if (opts.raw !== undefined) body = opts.raw;
    const res = await fetch(url, { method, headers, body: body as unknown as BodyInit, redirect: 'manual' }).catch((err: Error) => {
      // undici's "fetch failed" hides why (a refused connection, a socket the server closed): the cause says it
      const cause = err.cause as (Error & { code?: string }) | undefined;
      throw new Error(`${method} ${url.pathname}: ${err.message}${cause ? `: ${cause.code ?? cause.name} ${cause.message}` : ''}`, { cause: err });
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = Json>(path: string, query?: Record<string, unknown>, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { query, headers });
  }
  post<T = Json>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { json: json ?? {}, headers });
  }
  put<T = Json>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, { json: json ?? {}, headers });
  }
  delete<T = Json>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, { headers });
  }
}

/** The messages of a spec error body (`_server_messages` is a JSON list of JSON-encoded objects). */
export function serverMessages(body: { _server_messages?: string }): string[] {
  if (!body?._server_messages) return [];
  return (JSON.parse(body._server_messages) as string[]).map((s) => (JSON.parse(s) as { message: string }).message);
}

/** The cookies of a response as a Cookie header value. */
export function cookiesOf(res: HttpResponse): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}
