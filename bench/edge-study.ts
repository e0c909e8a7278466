/**
 * The edge study behind the WebSocket design (the project's seeds): one-way delays of 5 to 320 ms added with
 * `tc` between a phone-like client and its server, WebSocket against REST, full-process latency (encode,
 * send, server, answer). It measured REST at about 2x WebSocket at every delay, with a server that answered in
 * about 2 ms: what a new TCP connection per request predicts (a handshake round trip before the request's
 * own). Published means, ms, at the delays it gave them.
 */
export const EDGE_STUDY_DELAYS_MS = [5, 10, 20, 40, 80, 160, 320] as const;

export const EDGE_STUDY: Readonly<Record<number, { ws: number; rest: number }>> = {
  5: { ws: 12.2, rest: 24.8 },
  40: { ws: 47.3, rest: 94.6 },
  320: { ws: 327.8, rest: 654.9 },
};
