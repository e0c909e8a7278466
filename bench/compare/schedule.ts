/**
 * The order of the halves: cell by cell, and within a cell round-robin over the servers (A half 1, B half 1,
 * ..., A half 2, B half 2, ...), so a burst of load from elsewhere falls on every server alike instead of
 * on one server's whole cell. Every server stays up throughout, idle when not measured.
 */

export interface Step {
  /** Index into the cells. */
  cell: number;
  /** Index into the servers. */
  server: number;
  /** 0-based half of this server's cell. */
  half: number;
}

export function interleavedSteps(cells: number, servers: number, repeats: number): Step[] {
  const steps: Step[] = [];
  for (let cell = 0; cell < cells; cell++)
    for (let half = 0; half < repeats; half++) for (let server = 0; server < servers; server++) steps.push({ cell, server, half });
  return steps;
}
