/**
 * Loss processes: per packet put on the wire, lost or not. Random loss is a coin per packet; a
 * Gilbert-Elliott channel has a state that persists between packets, so losses come in bursts.
 */
import type { LossModel } from './profile.ts';
import type { Random } from './random.ts';

export interface LossProcess {
  /** Whether the next packet on the wire is lost. */
  lose(): boolean;
}

const NEVER: LossProcess = { lose: () => false };

export function createLossProcess(model: LossModel | undefined, random: Random): LossProcess {
  if (!model) return NEVER;
  if (model.kind === 'random') return model.rate > 0 ? { lose: () => random() < model.rate } : NEVER;
  return new GilbertElliott(model.p, model.r, model.lossBad, model.lossGood, random);
}

/**
 * Two-state Markov channel (Gilbert 1960, Elliott 1963; netem's `loss gemodel p r 1-h 1-k`). Starts Good.
 * The packet's fate is drawn in the current state, then the state moves for the next packet.
 */
export class GilbertElliott implements LossProcess {
  private bad = false;

  constructor(
    private readonly p: number,
    private readonly r: number,
    private readonly lossBad: number,
    private readonly lossGood: number,
    private readonly random: Random,
  ) {}

  get inBadState(): boolean {
    return this.bad;
  }

  lose(): boolean {
    const lost = this.random() < (this.bad ? this.lossBad : this.lossGood);
    this.bad = this.bad ? this.random() >= this.r : this.random() < this.p;
    return lost;
  }
}
