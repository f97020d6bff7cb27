/**
 * The shape that lets a partner be added by its own folder, one migration and one registration line
 * (docs/development/partners.md): the registry (src/partners/index.ts) is the only place listing the
 * partners, one line each; no file outside a partner's folder and the registry imports a module of
 * that folder, but the features built on one partner (named below, with why); a partner's folder
 * imports no other partner's; and fulfilment, orders and catalog name no partner.
 */
import test from 'ava';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import { importsOf, sources, type ImportRef } from '../helpers/sources.js';
import { PARTNER_KEYS } from '../../src/partners/index.js';

const src = sources('src');
const imports = src.flatMap(importsOf);
const folders = readdirSync(join(projectRoot, 'src/partners'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();
const partnerOf = (path: string) => /^src\/partners\/([^/]+)\//.exec(path)?.[1];
const where = (i: ImportRef) => `${i.from}:${i.line} imports ${i.target}`;

/** Features built on one partner's API, outside its folder: what they may import of it. */
const FEATURES_ON_A_PARTNER: Record<string, string[]> = {
  // the EMR flow is rxpartner's patient and prescription API (spec "EMR")
  'src/emr/': ['rxpartner'],
  // a customer's own shipper account and storefront (svc.integrations.*): those partners' clients
  'src/integrations/': ['shipper', 'storepartner'],
  // the composition root plugs integrations' customer key pairs into the shipper client
  'src/modules.ts': ['shipper'],
};

test('every partner folder is registered once, in the registry, and nothing else is', (t) => {
  t.deepEqual([...PARTNER_KEYS].sort(), folders);
  t.is(new Set(PARTNER_KEYS).size, PARTNER_KEYS.length);
  const registry = imports.filter((i) => i.from === 'src/partners/index.ts' && partnerOf(i.target));
  t.deepEqual(
    registry.map((i) => i.target).sort(),
    folders.map((p) => `src/partners/${p}/index.ts`),
  );
});

test('no file outside a partner’s folder and the registry imports a module of that folder (but the features built on it)', (t) => {
  const allowed = (i: ImportRef, partner: string) =>
    i.from === 'src/partners/index.ts' ||
    partnerOf(i.from) === partner ||
    Object.entries(FEATURES_ON_A_PARTNER).some(([prefix, partners]) => i.from.startsWith(prefix) && partners.includes(partner));
  const stray = imports.filter((i) => {
    const partner = partnerOf(i.target);
    return partner !== undefined && !allowed(i, partner);
  });
  t.deepEqual(stray.map(where), [], 'go through the connector interface (src/fulfilment/connector.ts) and the registry');
  t.true(
    imports.some((i) => i.from === 'src/partners/index.ts' && partnerOf(i.target)),
    'the imports are read',
  );
});

test('fulfilment, orders and catalog name no partner', (t) => {
  const named = new RegExp(`['"\`](${folders.join('|')})['"\`]`);
  const offenders = src
    .filter((s) => /^src\/(fulfilment|orders|catalog|shared|http)\//.test(s.path))
    .flatMap((s) =>
      s.file.text
        .split('\n')
        .map((line, n) => ({ line, n }))
        .filter(({ line }) => named.test(line) && !/^\s*(\*|\/\/)/.test(line))
        .map(({ n }) => `${s.path}:${n + 1}`),
    );
  t.deepEqual(offenders, [], 'partner knowledge belongs in src/partners/<partner>/ (its spec, its connector)');
});
