/**
 * The generated sections of `pnpm bench:compare --preset webrtc`: the cells (every row on every link, in
 * halves) and the long run (each video-track row for minutes, latency per minute), with what ran where, what
 * each link path emulates, and the exact commands. Pure: every figure is passed in.
 */
import { webRtcPeerCommand } from '../../baselines/webrtc-process.ts';
import { p95Growth, pooledFigures, type PeriodFigures } from '../../webrtc/figures.ts';
import { kbit, windowName, windowTrend } from '../../webrtc/report.ts';
import { compareContext, invocation, type CompareContext } from '../document.ts';
import type { CompareOptions } from '../options.ts';
import { PATH_NAMES, rowName, serverPlan, WEBRTC_SERVERS, type WebRtcRow } from './rows.ts';
import { WEBRTC_CELL_DEFAULTS, type LinkPath, type LinkResults, type RowResults } from './run.ts';
import { commandsBlock, fmt, int, mdTable, ms, ratio, sectionHead, shellWord } from '../../report.ts';

export interface WebRtcReport {
  options: CompareOptions;
  context: CompareContext;
  links: readonly LinkResults[];
  linkPath: LinkPath;
  /** Why that path (root or not, or asked for). */
  linkPathWhy: string;
  halfS: number;
  warmupS: number;
  windowS: number;
  /** The peer's venv and model, for the setup lines. */
  threads: number;
  workers: number;
}

/** What each way of putting a link on the UDP path emulates, and what it leaves out. */
export const LINK_PATH_NOTES: Record<'none' | LinkPath, string> = {
  none: 'loopback: the sender and the servers on 127.0.0.1, no emulation.',
  packet:
    "packet path (bench/link/packet, root): the servers run inside a network namespace joined to the host by two TUN devices, bound to the namespace's address (the gateway's HOST, which its WebRTC bind follows; the peer's --host); the sender's ICE binds the host end. Every packet between them (the WHIP request, ICE, DTLS, SCTP, RTP and RTCP) crosses a user-space forwarder that runs the link lab's datagram engine on each direction: rate and queue (tail drop), delay ± jitter (order kept), loss. Real kernel sockets at both ends.",
  relay:
    "UDP relay (gateway/src/link/udp-relay.ts, no root): the servers stay on loopback; the peer connection's one UDP flow (BUNDLE, rtcp-mux) goes through a relay in the benchmark process running the same datagram engine on each direction. The WHIP request goes straight to the server (not delayed). The server is not told the sender's candidates and the sender is given the relay's address for the server's, so nothing goes around it. Deliveries are timed by the benchmark's event loop (late under load, never early).",
};

const CELL_HEADER = [
  'server',
  'detections/s',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'sent',
  'detected',
  'refused',
  'lost / undetected',
  'skipped',
  'bytes/frame',
  'kbit/s',
  'p95 per window, ms (each half)',
];

function rowCells(result: RowResults): string[] {
  const name = serverPlan(result.row.server).name;
  if (result.halves.length === 0) return [name, ...CELL_HEADER.slice(1, -1).map(() => '-'), `failed: ${result.failures[0] ?? '?'}`];
  const f = pooledFigures(result.halves);
  const late = result.halves.reduce((sum, h) => sum + h.late, 0);
  return [
    name + (result.failures.length ? ` (${result.failures.length} half failed)` : ''),
    fmt(f.detectionsPerS, 1),
    ms(f.p50),
    ms(f.p95),
    ms(f.p99),
    int(f.sent),
    int(f.detected),
    int(f.refused),
    int(f.lost) + (late ? ` (${late} late)` : ''),
    int(f.skipped),
    int(f.bytesPerFrame),
    kbit(f.bytesPerS),
    result.halves.map((h) => windowTrend(h.windows)).join(' \\| '),
  ];
}

/** One table per link: the video-track rows, then the data-channel rows. */
export function cellTable(link: LinkResults): string {
  const rows: string[][] = [];
  for (const transport of ['webrtc-track', 'webrtc-dc'] as const) {
    const results = link.rows.filter((r) => r.row.transport === transport);
    if (results.length === 0) continue;
    rows.push([`**${PATH_NAMES[transport]}**`, ...CELL_HEADER.slice(1).map(() => '')]);
    rows.push(...results.map(rowCells));
  }
  return mdTable(CELL_HEADER, rows);
}

function pooled(link: LinkResults, row: WebRtcRow): PeriodFigures | undefined {
  const result = link.rows.find((r) => r.row.server === row.server && r.row.transport === row.transport);
  return result && result.halves.length ? pooledFigures(result.halves) : undefined;
}

/** The issue's question per link: Sightline's video-track p95 against the peer's, and the data channel against the track. */
export function verdictLines(link: LinkResults): string[] {
  const ours = pooled(link, { server: 'gateway', transport: 'webrtc-track' });
  if (!ours) return [];
  const lines: string[] = [];
  for (const key of ['peer-latest', 'peer-queue'] as const) {
    const peer = pooled(link, { server: key, transport: 'webrtc-track' });
    if (!peer) continue;
    const name = serverPlan(key).name;
    if (peer.detected === 0) {
      lines.push(
        `- Video track: ${name} returned no result within the timeout (${peer.lost} of ${peer.sent} frames undetected); Sightline p95 ${ms(ours.p95)} ms.`,
      );
      continue;
    }
    const holds = ours.p95 <= peer.p95;
    lines.push(
      `- Video track, Sightline against ${name}: p95 ${ms(ours.p95)} vs ${ms(peer.p95)} ms (${ratio(ours.p95, peer.p95)}): ` +
        `${holds ? 'at or below' : '**above**'}; detections/s ${fmt(ours.detectionsPerS, 1)} vs ${fmt(peer.detectionsPerS, 1)}.`,
    );
  }
  const dc = pooled(link, { server: 'gateway', transport: 'webrtc-dc' });
  if (dc) {
    lines.push(
      `- Sightline, data channel against video track: p95 ${ms(dc.p95)} vs ${ms(ours.p95)} ms, detections/s ${fmt(dc.detectionsPerS, 1)} vs ` +
        `${fmt(ours.detectionsPerS, 1)}, ${kbit(dc.bytesPerS)} vs ${kbit(ours.bytesPerS)} kbit/s sent, lost ${dc.lost} of ${dc.sent} vs ${ours.lost} of ${ours.sent}.`,
    );
  }
  return lines;
}

/** Minutes (or windows) of a long run as columns: "p50 / p95" in each. */
export function longRunTable(link: LinkResults): string {
  const runs = link.rows.filter((r) => r.halves.length > 0);
  const windows = Math.max(0, ...runs.map((r) => r.halves[0]!.windows.length));
  const names = runs[0]?.halves[0]?.windows.map(windowName) ?? [];
  const header = [
    'server',
    'detections/s',
    'p50 ms',
    'p95 ms',
    'undetected',
    ...names.map((n) => `${n}: p50 / p95`),
    'p95 growth (last - first)',
  ];
  const rows = link.rows.map((r) => {
    const name = `${serverPlan(r.row.server).name} · ${PATH_NAMES[r.row.transport]}`;
    const run = r.halves[0];
    if (!run) return [name, '-', '-', '-', '-', ...Array.from({ length: windows }, () => '-'), `failed: ${r.failures[0] ?? '?'}`];
    const growth = p95Growth(run.windows);
    return [
      name,
      fmt(run.detectionsPerS, 1),
      ms(run.p50),
      ms(run.p95),
      `${int(run.lost)} of ${int(run.figures.sent)}`,
      ...run.windows.map((w) => `${fmt(w.p50, 0)} / ${fmt(w.p95, 0)}${w.lost ? ` (${int(w.lost)} undetected)` : ''}`),
      growth === undefined ? '-' : `${growth > 0 ? '+' : ''}${fmt(growth, 0)} ms`,
    ];
  });
  return mdTable(header, rows);
}

/** The `pnpm bench:webrtc` command of one row on one link (one half), servers named by their variables. */
export function rowCommand(row: WebRtcRow, link: LinkResults, r: Pick<WebRtcReport, 'halfS' | 'warmupS' | 'windowS' | 'options'>): string {
  const words = [
    'pnpm bench:webrtc',
    '--url',
    `"$${serverPlan(row.server).variable}"`,
    '--transport',
    row.transport,
    '--duration',
    String(r.halfS),
    '--warmup',
    String(r.warmupS),
    '--fps',
    String(r.options.fps),
    '--every',
    String(r.windowS),
  ];
  // The long run counts every result that comes while it lasts.
  if (r.options.durationS !== undefined && row.transport === 'webrtc-track') words.push('--timeout', String(r.options.durationS * 1000));
  if (link.path !== 'none') words.push('--link', shellWord(link.link.spec));
  if (link.path === 'packet') words.push('--link-path', 'network', '--bind', '"$HOST_END"');
  return words.join(' ');
}

export function setupLines(r: Pick<WebRtcReport, 'threads' | 'workers' | 'linkPath'>): string[] {
  const lines = [
    `# Sightline: cd gateway && PORT=8080 SIGHTLINE_THREADS=${r.threads} SIGHTLINE_WORKERS=${r.workers} node --import tsx src/main.ts`,
    'GATEWAY=http://127.0.0.1:8080',
  ];
  let port = 8092;
  for (const plan of WEBRTC_SERVERS.filter((s) => s.mode !== undefined)) {
    lines.push(`# ${plan.name}: ${webRtcPeerCommand(plan.mode!, r.threads, String(port))}`, `${plan.variable}=http://127.0.0.1:${port}`);
    port++;
  }
  if (r.linkPath === 'packet') {
    lines.push(
      "# On a packet link (root): the same servers inside the link's namespace (bench/webrtc/servers-in-link.ts:",
      '# HOST=<namespace address> SIGHTLINE_TLS=off SIGHTLINE_AUTH=none for the gateway, --host <namespace address> for the peers),',
      "# their URLs in the variables above, and HOST_END the link's host address (PacketLink.hostAddress) for the sender.",
    );
  }
  return lines;
}

function senderNote(r: WebRtcReport): string[] {
  const trackTimeoutS = r.options.durationS ?? WEBRTC_CELL_DEFAULTS.trackTimeoutMs / 1000;
  const dcTimeoutS = WEBRTC_CELL_DEFAULTS.dcTimeoutMs / 1000;
  return [
    "The sender is one aiortc process for every row (bench/webrtc/python/webrtc_sender.py, the Python peer's venv): a real",
    'WebRTC stack not written here, the same for every server. It publishes the fixture photos as a moving 640x480',
    "slideshow (the gateway's clip maker) over WHIP. *Video track*: the clip encoded live by aiortc's VP8 encoder (its",
    "bitrate follows the receiver's REMB, 250 kbit/s to 1.5 Mbit/s; no pacing, no transport-cc) with a `detections` channel",
    "(unordered, no retransmissions) on which the server names each detected frame's RTP timestamp; the sender knows the",
    "timestamp each frame carried, so latency runs from capture to the result's arrival. A frame no result names within",
    `${trackTimeoutS} s is *undetected* (lost on the way, skipped by a server that detects the newest picture, or still queued when`,
    'the run ended; a result after the timeout is *late*).',
    '*Data channel*: the same frames as JPEG (q80) in MessagePack `frame` messages on a channel `frames` (unordered, no',
    `retransmissions), sent at the camera's ticks while fewer than ${WEBRTC_CELL_DEFAULTS.window} await their reply (else the tick is *skipped*); a frame`,
    "stops being awaited after a timeout that follows the replies (TCP's RTO: smoothed latency + 4 x its variation, at",
    `least 200 ms), since a lost message is never answered; latency from send to reply, no reply within ${dcTimeoutS} s *lost*.`,
    "The peer serves its `frames` channel with the FastAPI baseline's",
    'session whichever its mode, so its data channel is measured once. Percentiles are over every measured frame of every',
    'half (the warm-up left out).',
  ];
}

export function webrtcSection(r: WebRtcReport): string {
  const o = r.options;
  const long = o.durationS !== undefined;
  const cellsOf = (link: LinkResults) => link.rows.map((row) => row.row);
  const intro = long
    ? [
        ...sectionHead('WebRTC: the long run (latency per minute)', invocation(o), 'bench/compare/webrtc/', r.context.minutes),
        `Each video-track row once for ${o.durationS} s after a ${r.warmupS} s warm-up, one after the other, at ${o.fps} fps; latency per minute of the run, so a`,
        "delay that grows shows as growing. The issue's goal: Sightline's video-track p95 at or below the peer's, and bounded",
        "after 5 minutes (the queueing peer's grows when detection is slower than the frame rate).",
      ]
    : [
        ...sectionHead(
          "WebRTC: Sightline's two paths and the Python aiortc peer, on loopback and on links",
          invocation(o),
          'bench/compare/webrtc/',
          r.context.minutes,
        ),
        `Per link, every row in ${o.repeats} halves of ${r.halfS} s (after a ${r.warmupS} s warm-up each, a new peer connection`,
        `each half), round-robin over the rows, at ${o.fps} fps; the halves pooled. p95 per window: each half's ${r.windowS} s windows in order.`,
      ];
  const sections = r.links.flatMap((link) => [
    link.path === 'none'
      ? '### Loopback'
      : `### \`${link.link.spec}\`${link.rows[0]?.halves[0] ? ` (${link.rows[0].halves[0].link})` : ''}`,
    '',
    `*${LINK_PATH_NOTES[link.path]}*`,
    '',
    ...link.notMeasured.flatMap((n) => [`**Not measured:** ${n}.`, '']),
    long ? longRunTable(link) : cellTable(link),
    '',
    ...verdictLines(link),
    ...(link.packetStats
      ? [
          `- Packet link over the cell: up ${int(link.packetStats.up.delivered)} of ${int(link.packetStats.up.offered)} packets delivered ` +
            `(${int(link.packetStats.up.lost)} lost, ${int(link.packetStats.up.queueDrops)} queue drops), down ${int(link.packetStats.down.delivered)} of ` +
            `${int(link.packetStats.down.offered)}.`,
        ]
      : []),
    '',
    commandsBlock(
      cellsOf(link).map(
        (row) => `${rowCommand(row, link, r)}   # ${rowName(row)}${!long && o.repeats > 1 ? `, x${o.repeats} interleaved` : ''}`,
      ),
      'one half each',
    ),
    '',
  ]);
  const failures = r.links.flatMap((l) => l.rows.flatMap((row) => row.failures.map((f) => `${rowName(row.row)} on ${l.link.spec}: ${f}`)));
  return [
    ...intro,
    '',
    ...compareContext(r, [
      `Every server: ${r.threads} intra-op thread(s); the gateway: ${r.workers} inference worker(s).`,
      r.links.some((l) => l.path !== 'none')
        ? `Links through the ${r.linkPath === 'packet' ? 'packet path' : 'UDP relay'} (${r.linkPathWhy}).`
        : 'Loopback only: no link.',
    ]),
    '',
    ...senderNote(r),
    '',
    ...sections,
    commandsBlock(setupLines(r), 'starting the servers by hand'),
    ...(failures.length ? ['', `**Warning: halves failed during this run:** ${failures.join('; ')}`] : []),
  ].join('\n');
}
