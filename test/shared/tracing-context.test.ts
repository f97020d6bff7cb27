/**
 * The traced process's context manager (src/shared/tracing-context.ts): the active context follows
 * promises and `await` from where it was entered, two concurrent contexts never mix, and a callback
 * scheduled without a promise runs in the root context, never in another's.
 */
import test from 'ava';
import { createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { PromiseContextManager } from '../../src/shared/tracing-context.js';

const KEY = createContextKey('svc.test');
const named = (name: string): Context => ROOT_CONTEXT.setValue(KEY, name);
const nameOf = (m: PromiseContextManager) => m.active().getValue(KEY) as string | undefined;
const tick = () => new Promise<void>((r) => setImmediate(r));

test.serial('the context follows awaits and promise chains, each request its own', async (t) => {
  const m = new PromiseContextManager().enable();
  try {
    const seen: string[] = [];
    const request = async (name: string) => {
      await tick();
      seen.push(`${name}:${nameOf(m)}`);
      await Promise.all([tick().then(() => seen.push(`${name}.then:${nameOf(m)}`)), (async () => (await tick(), seen.push(`${name}.inner:${nameOf(m)}`)))()]);
      await tick();
      seen.push(`${name}.end:${nameOf(m)}`);
    };
    const a = m.with(named('a'), () => request('a'));
    const b = m.with(named('b'), () => request('b'));
    t.is(nameOf(m), undefined, 'outside with: the root context');
    await Promise.all([a, b]);
    for (const line of seen) t.is(line.split(':')[1], line.split(/[.:]/)[0], line);
    t.is(seen.length, 8);
  } finally {
    m.disable();
  }
});

test.serial('a callback scheduled without a promise runs in the root context, never in another', async (t) => {
  const m = new PromiseContextManager().enable();
  try {
    const seen: (string | undefined)[] = [];
    await m.with(named('a'), async () => {
      await tick();
      await new Promise<void>((r) =>
        setTimeout(() => {
          seen.push(nameOf(m));
          r();
        }, 1),
      );
      seen.push(nameOf(m));
    });
    t.deepEqual(seen, [undefined, 'a']);
    t.is(m.bind(named('b'), () => nameOf(m))(), 'b', 'bind runs a function in its context');
  } finally {
    m.disable();
  }
});

test.serial('disabled, it carries nothing', async (t) => {
  const m = new PromiseContextManager().enable().disable();
  const seen = await m.with(named('a'), async () => (await tick(), nameOf(m)));
  t.is(seen, undefined);
});
