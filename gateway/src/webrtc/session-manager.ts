/**
 * Owns every WHIP peer: creates one per offer while fewer than `maxPeers` are open (503 beyond, and while
 * draining), finds it again by id for DELETE, and closes it when its peer goes away: ICE consent lost
 * (`disconnected` for `disconnectGraceMs`), `failed`, or never connected within `connectTimeoutMs` of the
 * answer. libdatachannel itself notices a vanished peer only when ICE consent expires (26-29 s after
 * the peer's last packet, measured), so a connected peer that sends nothing at all (no RTP, no RTCP, no
 * data-channel message) for `inactivityTimeoutMs` is closed too: a video sender's RTCP alone keeps it
 * open, an idle data-channel client sends a `ping` now and then. `drain` refuses new peers and closes the
 * open ones; after it no peer, socket or timer is left (libdatachannel's thread pool stays until its
 * `cleanup()` at process exit).
 *
 * A peer asked to run behind an emulated link gets its own UDP relay (link/udp-relay.ts, the link lab's
 * datagram engine each way): the offer's candidates are kept from the stack and the answer names the relay,
 * so the peer's one UDP flow (BUNDLE, rtcp-mux) can only go through it; the relay closes with the peer.
 */
import { randomUUID } from 'node:crypto';
import type { RequestedLink } from '../link/link-request.ts';
import { candidateAddresses, replaceCandidates, withoutCandidates } from '../link/sdp-candidates.ts';
import { UdpRelay } from '../link/udp-relay.ts';
import { prepareOffer } from './offer-sdp.ts';
import { PeerSession, type PeerState } from './peer-session.ts';
import { WEBRTC_DEFAULTS, type WebRtcConfig } from './webrtc-config.ts';
import { WhipError } from './whip-error.ts';

/** How long a peer's link relay stays after the peer closes: longer than any preset's one-way delay and queue. */
const RELAY_LINGER_MS = 2_000;

export type SessionEndReason = 'deleted' | 'disconnected' | 'failed' | 'connect_timeout' | 'inactive' | 'drained' | 'closed_by_peer';

export interface SessionManagerOptions {
  config: Partial<WebRtcConfig> & Pick<WebRtcConfig, 'bindAddress'>;
  /** Called with each new session before its offer is answered: the adapter attaches its handlers here. */
  onSession?(session: PeerSession): void;
  onSessionEnd?(session: PeerSession, reason: SessionEndReason): void;
}

export interface SessionRequest {
  /** The link the peer's UDP flow runs behind (`?link=` on the POST); undefined: none. */
  link?: RequestedLink | undefined;
  /** The camera the peer's frames and video belong to (`?camera=` on the POST); DEFAULT_CAMERA when unset. */
  camera?: string | undefined;
}

export interface CreatedSession {
  id: string;
  answer: string;
  session: PeerSession;
}

export class SessionManager {
  readonly config: WebRtcConfig;
  readonly #options: SessionManagerOptions;
  readonly #sessions = new Map<string, PeerSession>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #relays = new Map<string, UdpRelay>();
  #draining = false;
  #livenessTimer: NodeJS.Timeout | undefined;

  constructor(options: SessionManagerOptions) {
    this.#options = options;
    this.config = { ...WEBRTC_DEFAULTS, ...options.config };
  }

  get size(): number {
    return this.#sessions.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  get(id: string): PeerSession | undefined {
    return this.#sessions.get(id);
  }

  sessions(): PeerSession[] {
    return [...this.#sessions.values()];
  }

  /** Offer in, answer out. Throws WhipError: 400 for an offer it cannot answer, 503 when full or draining. */
  async create(offer: string, request: SessionRequest = {}): Promise<CreatedSession> {
    if (this.#draining) throw new WhipError('draining', 'the gateway is shutting down');
    if (this.#sessions.size >= this.config.maxPeers) {
      throw new WhipError('too_many_peers', `the gateway takes at most ${this.config.maxPeers} WebRTC peers at once`);
    }
    const prepared = prepareOffer(offer, this.config.videoCodecs);
    // Behind a link the stack must not check the client's own candidates: it would find the pair around the relay.
    const given = request.link ? { ...prepared, sdp: withoutCandidates(prepared.sdp) } : prepared;
    const id = randomUUID();
    const session = new PeerSession(id, given, this.config, { link: request.link, camera: request.camera });
    this.#sessions.set(id, session);
    this.#watchLiveness();
    session.onStateChange((state) => this.#onState(session, state));
    try {
      this.#options.onSession?.(session);
      let answer = await session.answer();
      if (request.link) answer = await this.#behindRelay(session, answer, request.link);
      if (this.#sessions.get(id) !== session) throw new WhipError('negotiation_failed', 'the session ended while answering');
      this.#arm(id, this.config.connectTimeoutMs, 'connect_timeout');
      return { id, answer, session };
    } catch (error) {
      this.#end(session, 'failed');
      throw error;
    }
  }

  /** Starts the session's relay towards the stack's UDP candidate and answers with the relay's address alone. */
  async #behindRelay(session: PeerSession, answer: string, link: RequestedLink): Promise<string> {
    const target = candidateAddresses(answer).find((candidate) => candidate.transport === 'udp');
    if (!target) throw new WhipError('negotiation_failed', 'the answer has no UDP candidate to put behind the link');
    const relay = await UdpRelay.start({
      target,
      profile: link.profile,
      listenAddress: this.config.bindAddress,
      ...(this.config.portRange ? { portRange: this.config.portRange } : {}),
    });
    if (this.#sessions.get(session.id) !== session) {
      await relay.close();
      throw new WhipError('negotiation_failed', 'the session ended while answering');
    }
    this.#relays.set(session.id, relay);
    return replaceCandidates(answer, (candidate) =>
      candidate.port === target.port && candidate.address === target.address ? relay.address : undefined,
    );
  }

  /**
   * A relay outlives its peer a little: what the stack sent last (an SCTP abort, DTLS close_notify) is still
   * crossing the link's queue and delay, and tells the client at once that the session ended. After a drain
   * the channels' closes were already seen, and the process is about to exit.
   */
  #closeRelay(id: string, reason: SessionEndReason): void {
    const relay = this.#relays.get(id);
    if (!relay) return;
    this.#relays.delete(id);
    if (reason === 'drained') {
      void relay.close();
      return;
    }
    setTimeout(() => void relay.close(), RELAY_LINGER_MS).unref();
  }

  /** DELETE on the session's resource. */
  delete(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) throw new WhipError('not_found', 'no such WebRTC session');
    this.#end(session, 'deleted');
  }

  /**
   * Refuses new peers and closes every open one; resolves once all are closed. Their data channels are
   * closed first, so each peer hears of it at once instead of when its consent check expires.
   */
  async drain(waitMs = 1000): Promise<void> {
    this.#draining = true;
    await Promise.all(this.sessions().map((session) => session.closeGracefully(waitMs)));
    for (const session of this.sessions()) this.#end(session, 'drained');
  }

  /** One timer for all peers, running only while there are peers. */
  #watchLiveness(): void {
    if (this.#livenessTimer) return;
    const period = Math.max(100, Math.min(1000, this.config.inactivityTimeoutMs / 4));
    this.#livenessTimer = setInterval(() => {
      const now = performance.now();
      for (const session of this.sessions()) {
        if (session.state === 'connected' && session.idleMs(now) >= this.config.inactivityTimeoutMs) this.#end(session, 'inactive');
      }
    }, period);
    this.#livenessTimer.unref();
  }

  #onState(session: PeerSession, state: PeerState): void {
    if (!this.#sessions.has(session.id)) return;
    if (state === 'connected') this.#disarm(session.id);
    else if (state === 'disconnected') this.#arm(session.id, this.config.disconnectGraceMs, 'disconnected');
    else if (state === 'failed') this.#end(session, 'failed');
    else if (state === 'closed') this.#end(session, this.#draining ? 'drained' : 'closed_by_peer');
  }

  #arm(id: string, ms: number, reason: SessionEndReason): void {
    this.#disarm(id);
    const timer = setTimeout(() => {
      const session = this.#sessions.get(id);
      if (session) this.#end(session, reason);
    }, ms);
    timer.unref();
    this.#timers.set(id, timer);
  }

  #disarm(id: string): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
  }

  #end(session: PeerSession, reason: SessionEndReason): void {
    if (this.#sessions.get(session.id) !== session) return;
    this.#sessions.delete(session.id);
    this.#disarm(session.id);
    session.close();
    this.#closeRelay(session.id, reason);
    if (this.#sessions.size === 0) {
      clearInterval(this.#livenessTimer);
      this.#livenessTimer = undefined;
    }
    this.#options.onSessionEnd?.(session, reason);
  }
}
