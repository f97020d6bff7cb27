/** The inbound order's required fields (the spec's payload shape), reported field by field. */

export interface InboundOrder {
  reference: string;
  lineItems: { serviceSKU: string; quantity: number }[];
  shippingAddress: Record<string, string>;
}

const ADDRESS = ['firstName', 'address1', 'city', 'provinceCode', 'zip', 'countryCode'];

type Detail = { field: string; message: string };

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown) => typeof v === 'string' && v.trim() !== '';

export function validateInbound(body: unknown): { ok: true; value: InboundOrder } | { ok: false; details: Detail[] } {
  const details: Detail[] = [];
  if (!isObject(body)) return { ok: false, details: [{ field: '', message: 'body must be a JSON object' }] };
  if (!text(body.reference)) details.push({ field: 'reference', message: 'reference is required' });
  if (!Array.isArray(body.lineItems) || body.lineItems.length === 0) details.push({ field: 'lineItems', message: 'at least one line item is required' });
  else {
    body.lineItems.forEach((item: unknown, i) => {
      const it = isObject(item) ? item : {};
      if (!text(it.serviceSKU)) details.push({ field: `lineItems[${i}].serviceSKU`, message: 'serviceSKU is required' });
      if (!Number.isInteger(it.quantity) || (it.quantity as number) < 1)
        details.push({ field: `lineItems[${i}].quantity`, message: 'quantity must be a whole number of at least 1' });
    });
  }
  const address = isObject(body.shippingAddress) ? body.shippingAddress : undefined;
  if (!address) details.push({ field: 'shippingAddress', message: 'shippingAddress is required' });
  else for (const f of ADDRESS) if (!text(address[f])) details.push({ field: `shippingAddress.${f}`, message: `${f} is required` });
  return details.length ? { ok: false, details } : { ok: true, value: body as unknown as InboundOrder };
}
