/**
 * The API's error messages in the clinic's words, for the portal pages. The services speak to
 * developers and operators (the partner's key name, the setting to fix, a flag of the CLI); a clinic
 * manager needs what happened and what to do. Each known message maps to a sentence; anything else
 * becomes a sentence by its kind (status), never the raw text (no internal names, ids or types).
 */
import { DomainError } from '../shared/errors.js';

type Rule = [RegExp, string];

const RULES: Rule[] = [
  // shipping account (shipper = ShipStation)
  [
    /^shipper did not accept the key pair/,
    'ShipStation did not accept this API key and secret. Copy both again from ShipStation (Settings → Account → API Settings) and try again.',
  ],
  [/^shipper could not be reached/, 'We could not reach ShipStation just now to check your key. Please try again in a few minutes.'],
  [/^shipper is not available yet/, 'Connecting your own ShipStation account is not available yet. Please contact us and we will set it up.'],
  [
    /^shipper did not register the webhook/,
    'ShipStation accepted your key but did not let us sign up for tracking updates. Please try again later, or contact us if it keeps happening.',
  ],
  [/^shipper webhooks need/, 'Connecting your own ShipStation account is not available yet. Please contact us and we will set it up.'],
  // online store (storepartner = Shopify)
  [/is not a shop domain like/, 'That is not a Shopify shop address. Enter it as it appears in Shopify, like my-shop.myshopify.com.'],
  [/^The storefront self-connect is not set up/, 'Connecting a Shopify store is not available yet. Please contact us and we will set it up.'],
  [/^The storefront could not be reached/, 'We could not reach your Shopify store to finish connecting it. Please try again in a few minutes.'],
  [/^The storefront refused the install/, 'Shopify did not let us finish connecting your store. Please start again from this page.'],
  [
    /^The install’s state is unknown|^The callback is too old/,
    'Connecting your store took too long or was already finished. Please start again from this page.',
  ],
  [/^The install was started in another session/, 'Please finish connecting your store in the same browser where you started it.'],
  [/^The callback|^callback parameter/, 'The answer from Shopify could not be checked. Please start again from this page.'],
  [/^No storefront is connected/, 'No Shopify store is connected yet. Connect one on this page first.'],
  [/already running|is running/i, 'A sync is already running for your store. Please wait a minute and look again.'],
  // recall acknowledgements (the notice page's form)
  [
    /add up to more than the [\d.]+ shipped/,
    'On hand, returned and destroyed together cannot be more than the quantity shipped. Please check the marked line and try again.',
  ],
  [/is not one of your lines of recall/, 'One of these lines is not your clinic’s. Please reload the page and try again.'],
  [/^Recall \S+ is Closed/, 'This recall is closed: nothing more needs to be entered.'],
  // login and password reset
  [/^Invalid login credentials|^Incomplete login details/, 'The e-mail address or the password is not right. Please check both and try again.'],
  [/^Too many failed logins/, 'Too many attempts to log in. Please wait 15 minutes, or reset your password.'],
  [/^User disabled/, 'This account is switched off. Please ask your clinic’s administrator or contact us.'],
  [/^Password must have at least/, 'Please choose a password of at least 10 characters.'],
];

const BY_STATUS: Record<number, string> = {
  400: 'Some of what was entered could not be used. Please check it and try again.',
  401: 'Please log in again.',
  403: 'Your account cannot do this here.',
  404: 'We could not find what you were looking for.',
  409: 'Something else is being changed right now. Please wait a moment and try again.',
  429: 'Too many attempts in a short time. Please wait a few minutes and try again.',
};

/** The sentence a clinic reads for an error of the service. */
export function plainError(err: DomainError | { message: string; status: number }): string {
  const rule = RULES.find(([pattern]) => pattern.test(err.message));
  if (rule) return rule[1];
  return BY_STATUS[err.status] ?? 'That did not work. Please try again, or contact us if it keeps happening.';
}
