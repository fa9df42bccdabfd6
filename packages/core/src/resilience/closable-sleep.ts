/**
 * Waits `ms`, or rejects as soon as either signal aborts (with that signal's reason). Used for retry waits
 * so that `client.close()` (the `closing` signal) ends them at once instead of leaving timers behind.
 *
 * @example
 * ```ts
 * await closableSleep(500, request.signal, client.closingSignal)
 * ```
 */
export function closableSleep(ms: number, signal: AbortSignal | undefined, closing: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (closing.aborted) return Promise.reject(closing.reason);
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      closing.removeEventListener('abort', onClose);
    };
    const onAbort = (): void => {
      cleanup();
      reject(signal!.reason);
    };
    const onClose = (): void => {
      cleanup();
      reject(closing.reason);
    };
    const timer = setTimeout(() => {
      cleanup();
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    closing.addEventListener('abort', onClose, { once: true });
  });
}
