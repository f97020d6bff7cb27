/**
 * rxpartner webhook registrations (register_webhook) [infer]: one per URL, a repeat updates it;
 * deliveries still go to the simulator's `webhookUrl`.
 */
import { randomUUID } from 'node:crypto';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { nest } from './rxpartner.replies.js';

export function createRegistrations() {
  const registrations = new Map<string, { webhookId: string; url: string; contactEmail: string; events: string[] }>();
  return {
    register(req: SimRequest): SimReply {
      const b = req.json() as Record<string, unknown>;
      const errs: string[] = [];
      if (typeof b.url !== 'string' || !/^https?:\/\/\S+$/.test(b.url)) errs.push('url must be a URL');
      if (typeof b.contactEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(b.contactEmail)) errs.push('contactEmail must be an email');
      if (errs.length) return nest(400, errs, 'Bad Request');
      const url = String(b.url);
      const known = registrations.get(url);
      const events = Array.isArray(b.events) ? b.events.map(String) : [];
      const reg = { webhookId: known?.webhookId ?? `WH-${randomUUID()}`, url, contactEmail: String(b.contactEmail), events };
      registrations.set(url, reg);
      return json(known ? 200 : 201, reg);
    },
    list: (): SimReply => json(200, { webhooks: [...registrations.values()] }),
  };
}
