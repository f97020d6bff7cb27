import test from 'ava';
import { startNppesSimulator, type RunningNppes } from '../../src/simulators/index.js';
import { run } from '../../src/cli/main.js';
import { call } from './receiver.js';

let sim: RunningNppes;
const api = (query: string) => call(`${sim.url}/api/?${query}`);

test.before(async () => {
  sim = await startNppesSimulator({
    providers: [
      {
        number: '1063410173',
        firstName: 'ANTHONY',
        lastName: 'BARNES',
        credential: 'M.D',
        state: 'GA',
        taxonomy: { code: '208800000X', desc: 'Urology', license: '041718' },
      },
      { number: '1396949913', firstName: 'MEREDITH', lastName: 'GREY', status: 'D', state: 'WA' },
    ],
  });
});
test.after.always(() => sim?.close());

test("a registered NPI comes back in the registry's shape; an unknown one is result_count 0", async (t) => {
  const found = await api('version=2.1&number=1063410173');
  t.is(found.status, 200);
  t.is(found.body.result_count, 1);
  const r = found.body.results[0];
  t.is(r.number, 1063410173, 'a number, as the registry sends it');
  t.like(r, { enumeration_type: 'NPI-1', basic: { first_name: 'ANTHONY', last_name: 'BARNES', status: 'A' } });
  t.like(r.taxonomies[0], { code: '208800000X', desc: 'Urology', primary: true });
  t.is(r.addresses[0].address_purpose, 'LOCATION');
  t.deepEqual((await api('version=2.1&number=1234567893')).body, { result_count: 0, results: [] });
  t.is((await api('version=2.1&number=1396949913')).body.results[0].basic.status, 'D');
});

test('query errors are {"Errors":[…]} inside an HTTP 200; searches by name and state; providers can be added', async (t) => {
  const bad = await api('version=2.1&number=12345');
  t.is(bad.status, 200);
  t.is(bad.body.Errors[0].field, 'number');
  t.is((await api('number=1063410173')).body.Errors[0].field, 'version');
  t.is((await api('version=2.1')).body.Errors[0].description, 'No valid search criteria provided');
  t.is((await api('version=2.1&last_name=gr*&state=WA')).body.results[0].number, 1396949913);
  await call(`${sim.url}/_sim/providers`, { json: { number: '1689872012', enumerationType: 'NPI-2', organizationName: 'HARBOR FAMILY CLINIC' } });
  t.is((await api('version=2.1&number=1689872012')).body.results[0].basic.organization_name, 'HARBOR FAMILY CLINIC');
  sim.failNext(1, { status: 503, body: {} });
  t.is((await api('version=2.1&number=1689872012')).status, 503);
});

test('svc simulate nppes takes no partner flags', async (t) => {
  const lines: string[] = [];
  t.is(await run(['simulate', 'nppes', '--api-key', 'x'], { out: () => undefined, err: (l) => lines.push(l), env: {}, interactive: false }), 2);
  t.deepEqual(lines, ['error: nppes takes only --port and --host (not --api-key)']);
});
