/**
 * ICE candidates in SDP, for the user-space relay (udp-relay.ts): the relay sits between two peers only if
 * neither can reach the other around it. So the offer reaches the server without the client's candidates
 * (the server then knows the client only as the peer-reflexive address its checks come from: the relay),
 * and the answer reaches the client with each server candidate replaced by the relay's address. Without the
 * first, the server's ICE agent checks the client's own candidates directly and may pick that pair, around
 * the relay (werift did, while the WebRTC stack was chosen: docs/BENCHMARKS.md, "Link lab"). Pure text in, text out.
 */

export interface CandidateAddress {
  /** `udp` or `tcp`, lower case. */
  transport: string;
  address: string;
  port: number;
}

const CANDIDATE = /^a=candidate:(\S+) (\d+) (\S+) (\d+) (\S+) (\d+) (.*)$/;

function lines(sdp: string): string[] {
  return sdp.split(/\r?\n/).filter((line, i, all) => line !== '' || i < all.length - 1);
}

function join(parts: readonly string[]): string {
  return `${parts.join('\r\n')}\r\n`;
}

/** The candidates an SDP names, in order, duplicates (one per bundled media section) once. */
export function candidateAddresses(sdp: string): CandidateAddress[] {
  const seen = new Map<string, CandidateAddress>();
  for (const line of lines(sdp)) {
    const match = CANDIDATE.exec(line);
    if (!match) continue;
    const candidate = { transport: match[3]!.toLowerCase(), address: match[5]!, port: Number(match[6]) };
    seen.set(`${candidate.transport} ${candidate.address} ${candidate.port}`, candidate);
  }
  return [...seen.values()];
}

/**
 * The offer without its candidates and without `a=end-of-candidates`: the server keeps expecting more
 * (trickle) and takes the client's checks as peer-reflexive candidates, instead of failing on an empty list.
 */
export function withoutCandidates(sdp: string): string {
  return join(lines(sdp).filter((line) => !line.startsWith('a=candidate:') && line !== 'a=end-of-candidates'));
}

/**
 * The answer with each UDP candidate's address replaced by `replace(candidate)` (undefined: the candidate is
 * dropped, so the client cannot reach the server around the relay). TCP candidates are dropped too: the
 * relay carries UDP.
 */
export function replaceCandidates(
  sdp: string,
  replace: (candidate: CandidateAddress) => { address: string; port: number } | undefined,
): string {
  const out: string[] = [];
  for (const line of lines(sdp)) {
    const match = CANDIDATE.exec(line);
    if (!match) {
      out.push(line);
      continue;
    }
    const candidate = { transport: match[3]!.toLowerCase(), address: match[5]!, port: Number(match[6]) };
    const target = candidate.transport === 'udp' ? replace(candidate) : undefined;
    if (!target) continue;
    const [, foundation, component, transport, priority, , , rest] = match;
    out.push(`a=candidate:${foundation} ${component} ${transport} ${priority} ${target.address} ${target.port} ${rest}`);
  }
  return join(out);
}
