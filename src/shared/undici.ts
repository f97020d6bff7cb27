/**
 * undici, loaded by an outbox worker as it starts (its handlers call out) and otherwise on the first
 * outbound call (a partner, a webhook, a store's bulk file): its modules cost a process about 0.2 s of
 * CPU, which an admin command or a test's app that calls no one does not pay (docs/decisions.md, "The
 * test suite's time"). Node's own fetch does not load this package.
 */
export type Undici = typeof import('undici');

let loading: Promise<Undici> | undefined;

export function loadUndici(): Promise<Undici> {
  loading ??= import('undici');
  return loading;
}
