/** Waits (real time, up to `ms`) until `cond` holds, looking every 5 ms; returns whether it did. */
export async function until(
  cond: () => boolean | Promise<boolean>,
  ms = 3000,
): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return await cond();
}
