/** A process that starts a packet link, runs `sleep` inside it, says `ready` and waits to be killed. */
import { parseLinkSpec } from '@sightline/shared/link';
import { PacketLink } from '../../link/packet/packet-link.ts';

const link = await PacketLink.start({ profile: parseLinkSpec('delay=5ms') });
const sleeper = link.spawn('sleep', ['300']);
console.log(JSON.stringify({ ready: true, device: link.hostTun, sleeper: sleeper.pid }));
setInterval(() => {}, 60_000);
