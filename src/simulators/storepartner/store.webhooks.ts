/**
 * Shopify-style webhooks: the REST Order as body, a base64 HMAC-SHA256 of the raw body in the
 * spec's header X-Storepartner-Hmac-Sha256 (keyed with the webhook secret, else the client
 * secret), and Shopify's topic, shop, version, webhook id, event id and time headers.
 */
import { createHmac, randomUUID } from 'node:crypto';

export function storeHmac(secret: string, rawBody: string): string {
  return createHmac('sha256', secret).update(rawBody).digest('base64');
}

export function storeWebhookHeaders(opts: { secret: string; topic: string; shop: string; raw: string; eventId?: string }): Record<string, string> {
  return {
    'X-Storepartner-Hmac-Sha256': storeHmac(opts.secret, opts.raw),
    'X-Shopify-Topic': opts.topic,
    'X-Shopify-Shop-Domain': opts.shop,
    'X-Shopify-API-Version': '2026-04',
    'X-Shopify-Webhook-Id': randomUUID(),
    'X-Shopify-Event-Id': opts.eventId ?? randomUUID(),
    'X-Shopify-Triggered-At': new Date().toISOString(),
  };
}
