/** Where the gateway is in its life: serving, or draining after the first shutdown signal. */
import type { GatewayState } from '@sightline/shared/schemas';

export class Lifecycle {
  state: GatewayState = 'ready';
  readonly startedAt = Date.now();

  get draining(): boolean {
    return this.state === 'draining';
  }
}
