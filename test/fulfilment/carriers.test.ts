/**
 * Carriers (partners.md section 3): ShipStation codes and Shopify names resolve to one carrier; the
 * tracking URL is derived with the number URL-encoded, only for letter-and-digit numbers and known
 * carriers; inbound tracking URLs are kept only on the carriers' own https hosts; status texts map
 * to stages, which move forward only (Exception and Returned at any time).
 */
import test from 'ava';
import { allowedTrackingUrl, carrierName, carrierOf, isCarrierHost, nextStage, stageOf, trackingUrlFor, trackingUrlOf } from '../../src/fulfilment/carriers.js';
import { resolveStage } from '../../src/vendor-api/stages.js';

test('ShipStation codes, Shopify names and free spellings resolve to one carrier', (t) => {
  const cases: [string, string | undefined][] = [
    ['ups', 'ups'],
    ['ups_walleted', 'ups'],
    ['UPS', 'ups'],
    ['U.P.S.', 'ups'],
    ['ups_mail_innovations', 'ups'],
    ['fedex', 'fedex'],
    ['fedex_walleted', 'fedex'],
    ['FedEx', 'fedex'],
    ['Federal Express', 'fedex'],
    ['usps', 'usps'],
    ['stamps_com', 'usps'],
    ['endicia', 'usps'],
    ['globalpost', 'usps'],
    ['USPS', 'usps'],
    ['dhl_express', 'dhl_express'],
    ['dhl_express_worldwide', 'dhl_express'],
    ['DHL Express', 'dhl_express'],
    ['dhl-express', 'dhl_express'],
    ['dhl_global_mail', 'dhl_ecommerce'],
    ['dhl_ecommerce', 'dhl_ecommerce'],
    ['DHL eCommerce', 'dhl_ecommerce'],
    ['ontrac', 'ontrac'],
    ['OnTrac', 'ontrac'],
    ['LaserShip', 'ontrac'],
    ['amazon_buy_shipping', 'amazon'],
    ['Amazon Logistics US', 'amazon'],
    ['canada_post', 'canada_post'],
    ['Canada Post', 'canada_post'],
    ['seko', undefined],
    ['Pigeon Post', undefined],
    ['', undefined],
  ];
  for (const [text, key] of cases) t.is<string | undefined, string | undefined>(carrierOf(text), key, text);
  t.is(carrierOf(null), undefined);
  t.is(carrierName('ups_walleted'), 'UPS');
  t.is(carrierName('dhl_global_mail'), 'DHL eCommerce');
  t.is(carrierName('firstmile'), undefined);
});

test('tracking URLs: the carrier’s page, the number URL-encoded; blank for unknown carriers and odd numbers', (t) => {
  t.is(trackingUrlFor('ups_walleted', '1Z1V152Y6827822533'), 'https://www.ups.com/track?loc=en_US&tracknum=1Z1V152Y6827822533');
  t.is(trackingUrlFor('FedEx', '123456789012'), 'https://www.fedex.com/fedextrack/?trknbr=123456789012');
  t.is(trackingUrlFor('stamps_com', '9400100000000000000001'), 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000001');
  t.is(trackingUrlFor('DHL Express', '1234567890'), 'https://www.dhl.com/us-en/home/tracking/tracking-express.html?submit=1&tracking-id=1234567890');
  t.is(trackingUrlFor('dhl_ecommerce', '4201234591234567890123456789'), 'https://webtrack.dhlecs.com/?trackingnumber=4201234591234567890123456789');
  t.is(trackingUrlFor('ontrac', 'C12345678901234'), 'https://www.ontrac.com/tracking/?number=C12345678901234');
  t.is(trackingUrlFor('amazon_buy_shipping', 'TBA123456789012'), 'https://track.amazon.com/tracking/TBA123456789012');
  t.is(trackingUrlFor('Canada Post', '1234567890123456'), 'https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor=1234567890123456');
  t.is(trackingUrlFor('seko', '1234567890'), null, 'unknown carrier: blank');
  t.is(trackingUrlFor(null, '1234567890'), null);
  for (const bad of ['1Z 999', '1Z&x=1', '../../x', '<script>', 'abc', '', 'A'.repeat(41)]) t.is(trackingUrlFor('ups', bad), null, bad);
  t.is(trackingUrlFor('ups', null), null);
});

test('inbound tracking URLs are kept only on the carriers’ own https hosts; otherwise derived', (t) => {
  t.is(allowedTrackingUrl('https://www.ups.com/track?loc=en_US&tracknum=1Z2345'), 'https://www.ups.com/track?loc=en_US&tracknum=1Z2345');
  t.is(allowedTrackingUrl('https://tools.usps.com/go/TrackConfirmAction?tLabels=94001'), 'https://tools.usps.com/go/TrackConfirmAction?tLabels=94001');
  t.is(allowedTrackingUrl('https://ups.com/track?tracknum=1'), 'https://ups.com/track?tracknum=1');
  for (const bad of [
    'http://www.ups.com/track?tracknum=1',
    'https://www.ups.com.evil.example/track',
    'https://evilups.com/x',
    'https://user:pw@www.ups.com/',
    'https://www.ups.com:8443/x',
    'javascript:alert(1)',
    'https://127.0.0.1/x',
    'not a url',
    '',
    'https://amazon.com/phish',
  ])
    t.is(allowedTrackingUrl(bad), null, bad);
  t.is(allowedTrackingUrl(null), null);
  t.true(isCarrierHost('WWW.FEDEX.COM.'));
  t.false(isCarrierHost('fedex.com.example.org'));
  t.is(
    trackingUrlOf({ url: 'https://evil.example/track', carrier: 'usps', number: '9400100000000000000001' }),
    'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000001',
    'a foreign link is replaced by the carrier’s',
  );
  t.is(trackingUrlOf({ url: 'https://evil.example/track', carrier: 'pigeon', number: '1' }), null);
  t.is(
    trackingUrlOf({ url: 'https://www.fedex.com/fedextrack/?trknbr=1', carrier: 'ups', number: '1Z2' }),
    'https://www.fedex.com/fedextrack/?trknbr=1',
    'a carrier link is kept as sent',
  );
});

test('status texts map to stages, any case, `_`, `-` and spaces alike; shipped → Dispatched (spec)', (t) => {
  const cases: [string, string | undefined][] = [
    ['shipped', 'Dispatched'],
    ['SHIPPED', 'Dispatched'],
    ['awaiting_shipment', 'Pending'],
    ['pending', 'Pending'],
    ['processing', 'Pending'],
    ['label_printed', 'Label Created'],
    ['LABEL_CREATED', 'Label Created'],
    ['label_purchased', 'Label Created'],
    ['carrier_picked_up', 'Dispatched'],
    ['confirmed', 'Dispatched'],
    ['in_transit', 'In Transit'],
    ['InTransit', 'In Transit'],
    ['IT', 'In Transit'],
    ['out_for_delivery', 'Out for Delivery'],
    ['attempted_delivery', 'Delivery Attempted'],
    ['AttemptFail', 'Delivery Attempted'],
    ['ready_for_pickup', 'Available for Pickup'],
    ['available-for-pickup', 'Available for Pickup'],
    ['delivered', 'Delivered'],
    ['DE', 'Delivered'],
    ['failure', 'Exception'],
    ['EX', 'Exception'],
    ['lost', 'Exception'],
    ['return_to_sender', 'Returned'],
    ['voided', 'Cancelled'],
    ['canceled', 'Cancelled'],
    ['teleported', undefined],
    ['', undefined],
  ];
  for (const [text, stage] of cases) t.is<string | undefined, string | undefined>(stageOf(text), stage, text);
  t.is(resolveStage('shipped', true, null), 'Dispatched', 'the vendor interface reads the same table');
});

test('stages move forward only; Exception and Returned at any time; Cancelled only before the parcel left', (t) => {
  t.is(nextStage(null, 'Label Created'), 'Label Created');
  t.is(nextStage('Pending', 'In Transit'), 'In Transit');
  t.is(nextStage('In Transit', 'Label Created'), 'In Transit', 'a late label never undoes transit');
  t.is(nextStage('Delivered', 'In Transit'), 'Delivered');
  t.is(nextStage('Delivered', 'Returned'), 'Returned');
  t.is(nextStage('In Transit', 'Exception'), 'Exception');
  t.is(nextStage('Exception', 'Delivered'), 'Delivered', 'the carrier recovered the parcel');
  t.is(nextStage('Exception', 'Cancelled'), 'Exception');
  t.is(nextStage('Delivery Attempted', 'Out for Delivery'), 'Out for Delivery', 'out again after an attempt');
  t.is(nextStage('Out for Delivery', 'Available for Pickup'), 'Available for Pickup');
  t.is(nextStage('Label Created', 'Cancelled'), 'Cancelled');
  t.is(nextStage('Dispatched', 'Cancelled'), 'Dispatched', 'a void after pickup is not the parcel’s stage');
  t.is(nextStage('Cancelled', 'Dispatched'), 'Cancelled');
  t.is(nextStage('Returned', 'Delivered'), 'Returned');
  t.is(nextStage('Something else', 'Dispatched'), 'Dispatched', 'an unknown previous stage does not block');
});
