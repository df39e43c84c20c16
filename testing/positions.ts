/** Checks of join answers shared by tests and benchmarks (several instances on one store). */

/**
 * Join answers that cannot be exact, when nobody leaves and admission is FIFO: the arrivals
 * below `seq` not waiting at its commit are a prefix 1..A, A = seq - position can only grow with
 * `seq`, and it never passes the `admitted` total at the end.
 */
export function wrongPositions(answers: { seq: number; position: number }[], admitted: number) {
  let prefix = 0, wrong = 0;
  for (const a of [...answers].sort((x, y) => x.seq - y.seq)) {
    const before = a.seq - a.position;
    if (before < prefix || before > admitted) wrong++;
    prefix = Math.max(prefix, before);
  }
  return wrong;
}
