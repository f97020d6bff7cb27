/**
 * The active OpenTelemetry context of a traced process, carried by V8's promise hooks
 * (node:v8 `promiseHooks`) instead of AsyncLocalStorage (issue 25 §4's cost). On Node 20,
 * AsyncLocalStorage runs async_hooks' machinery for every promise of the process once any store is
 * entered: an async id and a trigger id allocated and stored on the promise, the store copied onto
 * it, and the execution stack pushed and popped around each reaction. Here a promise created while a
 * context is active gets that context (one property), and a reaction runs in its promise's
 * context: the same propagation along promises and `await` as AsyncLocalStorage, about half its
 * CPU per promise (measured: see docs/decisions.md, "Tracing").
 *
 * What it does not carry: callbacks scheduled without a promise (timers, process.nextTick,
 * event-emitter listeners, I/O callbacks) run in the root context, never in another request's,
 * since every `with` and every reaction restores the context it found. svc's traced work (the
 * request handled by hapi, Sequelize and pg calls, outbox rows, partner calls and webhooks through
 * fetch) is async functions and promises throughout.
 */
import { promiseHooks } from 'node:v8';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

const CONTEXT = Symbol('svc.tracing.context');
type Carrier = Promise<unknown> & { [CONTEXT]?: Context };

export class PromiseContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;
  /** the contexts the running reactions replaced (reactions do not nest, but a `with` may run one) */
  private readonly saved: Context[] = [];
  private stop: (() => unknown) | undefined;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const previous = this.current;
    this.current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  /** A function that runs `target` in `context`; anything else (an event emitter) is returned as it is. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (self: unknown, args: unknown[]) => this.with(context, () => (target as (...a: unknown[]) => unknown).apply(self, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }

  enable(): this {
    if (this.stop) return this;
    this.stop = promiseHooks.createHook({
      init: (promise: Carrier) => {
        if (this.current !== ROOT_CONTEXT) promise[CONTEXT] = this.current;
      },
      before: (promise: Carrier) => {
        this.saved.push(this.current);
        this.current = promise[CONTEXT] ?? ROOT_CONTEXT;
      },
      after: () => {
        this.current = this.saved.pop() ?? ROOT_CONTEXT;
      },
    }) as () => unknown;
    return this;
  }

  disable(): this {
    this.stop?.();
    this.stop = undefined;
    this.current = ROOT_CONTEXT;
    this.saved.length = 0;
    return this;
  }
}
