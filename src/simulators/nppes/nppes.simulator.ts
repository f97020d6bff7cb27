/**
 * NPPES NPI Registry simulator (issue 13; partners.md section 4): `GET /api/?version=2.1&number=<npi>`
 * and the name/state searches, answering from a few configurable registered providers in the
 * registry's own shape. Query errors come back as `{"Errors":[…]}` inside an HTTP 200, as the
 * registry does. No key is needed.
 */
import { json, startSimServer, type ControlRoute, type SimReply, type SimRequest, type SimServer } from '../shared/http.js';
import { controlBody } from '../shared/simulator.js';
import { SimError, type FailSpec, type SimRequestLog } from '../shared/types.js';

export interface NppesProvider {
  number: string;
  enumerationType?: 'NPI-1' | 'NPI-2';
  firstName?: string;
  lastName?: string;
  organizationName?: string;
  credential?: string;
  /** "A" active (default) or "D" deactivated */
  status?: 'A' | 'D';
  state?: string;
  city?: string;
  postalCode?: string;
  taxonomy?: { code: string; desc: string; license?: string };
}

export const DEFAULT_PROVIDERS: NppesProvider[] = [
  {
    number: '1063410173',
    firstName: 'ANTHONY',
    lastName: 'BARNES',
    credential: 'M.D',
    state: 'GA',
    city: 'ATLANTA',
    postalCode: '303157129',
    taxonomy: { code: '208800000X', desc: 'Urology', license: '041718' },
  },
  {
    number: '1234567893',
    firstName: 'GREGORY',
    lastName: 'HOUSE',
    credential: 'M.D.',
    state: 'NJ',
    city: 'PRINCETON',
    postalCode: '085401234',
    taxonomy: { code: '207R00000X', desc: 'Internal Medicine', license: 'MD-1234' },
  },
  {
    number: '1396949913',
    firstName: 'MEREDITH',
    lastName: 'GREY',
    credential: 'M.D.',
    state: 'WA',
    city: 'SEATTLE',
    postalCode: '981010000',
    taxonomy: { code: '208600000X', desc: 'Surgery', license: 'MD-5678' },
  },
  {
    number: '1689872012',
    enumerationType: 'NPI-2',
    organizationName: 'HARBOR FAMILY CLINIC',
    state: 'TX',
    city: 'AUSTIN',
    postalCode: '733010000',
    taxonomy: { code: '261QP2300X', desc: 'Clinic/Center, Primary Care' },
  },
];

export interface RunningNppes {
  url: string;
  close(): Promise<void>;
  register(provider: NppesProvider): void;
  failNext(count: number, spec: FailSpec): void;
  requests(): SimRequestLog[];
}

/** The `basic` block: an organization's (NPI-2) or a person's (NPI-1). */
function basicOf(p: NppesProvider, type: string) {
  return type === 'NPI-2'
    ? {
        organization_name: p.organizationName ?? '',
        organizational_subpart: 'NO',
        enumeration_date: '2007-05-21',
        last_updated: '2020-01-15',
        status: p.status ?? 'A',
      }
    : {
        first_name: p.firstName ?? '',
        last_name: p.lastName ?? '',
        credential: p.credential ?? '',
        sole_proprietor: 'NO',
        enumeration_date: '2005-07-12',
        last_updated: '2014-02-06',
        status: p.status ?? 'A',
      };
}

const addressOf = (p: NppesProvider, purpose: string) => ({
  country_code: 'US',
  country_name: 'United States',
  address_purpose: purpose,
  address_type: 'DOM',
  address_1: '1 MAIN ST',
  city: p.city ?? '',
  state: p.state ?? '',
  postal_code: p.postalCode ?? '',
  telephone_number: '555-010-0000',
});

function result(p: NppesProvider) {
  const type = p.enumerationType ?? 'NPI-1';
  return {
    created_epoch: '1121126400000',
    enumeration_type: type,
    last_updated_epoch: '1391644800000',
    number: Number(p.number),
    basic: basicOf(p, type),
    addresses: [addressOf(p, 'LOCATION'), addressOf(p, 'MAILING')],
    taxonomies: p.taxonomy
      ? [{ code: p.taxonomy.code, taxonomy_group: '', desc: p.taxonomy.desc, state: p.state ?? '', license: p.taxonomy.license ?? null, primary: true }]
      : [],
    identifiers: [],
    endpoints: [],
    other_names: [],
    practiceLocations: [],
  };
}

const error = (description: string, field: string, number = '09'): SimReply => json(200, { Errors: [{ description, field, number }] });
const CRITERIA = ['number', 'first_name', 'last_name', 'organization_name', 'state', 'postal_code', 'city', 'taxonomy_description', 'enumeration_type'];

/** `GET /api/?version=2.1&…`: the registry's checks on the query, then the matching providers, paged. */
function searchOf(providers: Map<string, NppesProvider>) {
  return (req: SimRequest): SimReply => {
    if (req.method !== 'GET' || (req.path !== '/api/' && req.path !== '/api')) return { status: 404, contentType: 'text/html', text: '<h1>Not Found</h1>' };
    const q = req.query;
    if (q.get('version') !== '2.1') return error('Version 2.1 is the only version served here', 'version', '04');
    if (!CRITERIA.some((c) => q.get(c))) return error('No valid search criteria provided', 'generic', '04');
    const number = q.get('number');
    if (number && !/^\d{10}$/.test(number)) return error('Field number requires number of 10 digits', 'number');
    const limit = Number(q.get('limit') ?? 10);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) return error('Field limit must be a number between 1 and 200', 'limit');
    const skip = Math.max(0, Number(q.get('skip') ?? 0) || 0);
    const like = (value: string | undefined, want: string | null) => !want || (value ?? '').toUpperCase().startsWith(want.replace(/\*$/, '').toUpperCase());
    const found = [...providers.values()].filter(
      (p) =>
        (!number || p.number === number) &&
        like(p.firstName, q.get('first_name')) &&
        like(p.lastName, q.get('last_name')) &&
        like(p.organizationName, q.get('organization_name')) &&
        (!q.get('state') || p.state === q.get('state')!.toUpperCase()) &&
        (!q.get('enumeration_type') || (p.enumerationType ?? 'NPI-1') === q.get('enumeration_type')),
    );
    const page = found.slice(skip, skip + limit).map(result);
    return json(200, { result_count: page.length, results: page });
  };
}

/** The registry's `/_sim/` controls: its providers, the calls it received, injected failures. */
function nppesControls(providers: Map<string, NppesProvider>, register: (p: NppesProvider) => void, server: () => SimServer): ControlRoute[] {
  return [
    { method: 'GET', path: 'providers', handle: () => ({ providers: [...providers.values()] }) },
    { method: 'POST', path: 'providers', handle: (req) => (register(controlBody(req) as unknown as NppesProvider), { registered: true }) },
    { method: 'GET', path: 'requests', handle: () => ({ requests: server().requests() }) },
    {
      method: 'POST',
      path: 'fail-next',
      handle: (req) => {
        const b = controlBody(req);
        server().failNext(Number(b.count ?? 1), {
          status: Number(b.status ?? 503),
          body: b.body,
          delayMs: typeof b.delayMs === 'number' ? b.delayMs : undefined,
          reset: b.reset === true,
        });
        return { ok: true };
      },
    },
  ];
}

/** Starts the registry simulator with `providers` (default: four demo providers). */
export async function startNppesSimulator(options: { host?: string; port?: number; providers?: NppesProvider[] } = {}): Promise<RunningNppes> {
  const providers = new Map((options.providers ?? DEFAULT_PROVIDERS).map((p) => [p.number, p]));
  const register = (p: NppesProvider) => {
    if (!/^\d{10}$/.test(p?.number ?? '')) throw new SimError('a provider needs a 10-digit number', 400);
    providers.set(p.number, p);
  };
  const server = await startSimServer({
    host: options.host,
    port: options.port,
    handle: searchOf(providers),
    controls: nppesControls(providers, register, () => server),
  });
  return { url: server.url, close: () => server.close(), register, failNext: (c, s) => server.failNext(c, s), requests: () => server.requests() };
}
