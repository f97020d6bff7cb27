/** Resolves with `work`'s value, or `{ late: true }` once `untilMs` (Date.now() units) has passed; `work` is left to itself then. */
export async function within<T>(work: Promise<T>, untilMs: number): Promise<{ late: false; value: T } | { late: true }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ late: true }>((resolve) => {
    timer = setTimeout(() => resolve({ late: true }), Math.max(0, untilMs - Date.now()));
  });
  try {
    return await Promise.race([work.then((value) => ({ late: false as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
