/**
 * rxpartner's webhook signature (partners.md section 5, [infer] and configurable on the service
 * side): hex HMAC-SHA256 keyed with the client secret over nonce + timestamp + sha256_hex(raw body),
 * plain concatenation; headers X-Rxpartner-Signature / -Nonce / -Timestamp (Unix seconds).
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';

export function rxSignature(clientSecret: string, nonce: string, timestamp: string, rawBody: string): string {
  const bodyHash = createHash('sha256').update(rawBody).digest('hex');
  return createHmac('sha256', clientSecret)
    .update(nonce + timestamp + bodyHash)
    .digest('hex');
}

/** The three headers for one delivery (a fresh nonce, the current time). */
export function rxSignedHeaders(clientSecret: string, rawBody: string, now = Date.now()): Record<string, string> {
  const nonce = randomUUID();
  const timestamp = String(Math.floor(now / 1000));
  return { 'X-Rxpartner-Signature': rxSignature(clientSecret, nonce, timestamp, rawBody), 'X-Rxpartner-Nonce': nonce, 'X-Rxpartner-Timestamp': timestamp };
}
