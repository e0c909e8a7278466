/**
 * The link engine's randomness: a seeded generator, so a run (jitter samples, losses, bursts) is replayed
 * exactly from its seed. sfc32 seeded through splitmix32: small, fast, and good enough for simulation
 * (passes PractRand to terabytes); not for anything secret.
 */

/** Uniform in [0, 1). */
export type Random = () => number;

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function seededRandom(seed: number): Random {
  const init = splitmix32(seed);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) next();
  return () => next() / 4_294_967_296;
}

/** A seed for a run that names none: different each time, printed by callers so the run can be replayed. */
export function freshSeed(): number {
  return Math.floor(Math.random() * 4_294_967_296) >>> 0;
}

/** A second, independent stream from one seed (e.g. one per direction of a link). */
export function deriveSeed(seed: number, stream: number): number {
  return splitmix32((seed ^ Math.imul(stream + 1, 0x27d4eb2f)) >>> 0)();
}
