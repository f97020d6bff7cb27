/** How rxpartner answers errors: a NestJS body, the gateway's HTML 502, the throttler's 429. */
import { json, type SimReply } from '../shared/http.js';

export const nest = (status: number, message: string | string[], error?: string): SimReply =>
  json(status, { statusCode: status, message, ...(error ? { error } : {}) });

export const BAD_GATEWAY: SimReply = {
  status: 502,
  contentType: 'text/html',
  text: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>',
};

export const throttled = (retryAfterSeconds: number): SimReply => ({
  ...nest(429, 'ThrottlerException: Too Many Requests'),
  headers: { 'Retry-After': retryAfterSeconds },
});
