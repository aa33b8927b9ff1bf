/**
 * Waits for every promise, then throws the first failure, if any. Unlike
 * Promise.all, nothing is still under way when it throws: a batch retried
 * after a failed write does not run beside the rest of its first attempt.
 */
export async function allOrFirstFailure<T>(promises: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(promises);
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
