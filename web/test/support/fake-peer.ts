/**
 * A fake RTCPeerConnection (with its data channels and a video sender) for the units that drive one: it records
 * what it was asked to make, and a test plays the browser's side (gathering done, a channel opening, a message).
 */
export class FakeChannel {
  readyState: RTCDataChannelState = 'connecting';
  binaryType = 'blob';
  bufferedAmount = 0;
  bufferedAmountLowThreshold = 0;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: (() => void) | null = null;
  onbufferedamountlow: (() => void) | null = null;
  readonly sent: unknown[] = [];
  constructor(
    readonly label: string,
    readonly init: RTCDataChannelInit | undefined,
  ) {}
  send(data: unknown): void {
    this.sent.push(data);
  }
  receive(data: unknown): void {
    this.onmessage?.({ data } as MessageEvent);
  }
}

export class FakeSender {
  parameters: RTCRtpSendParameters = {
    encodings: [],
    transactionId: 't',
    codecs: [],
    headerExtensions: [],
    rtcp: {},
  } as RTCRtpSendParameters;
  replaced: unknown[] = [];
  getParameters(): RTCRtpSendParameters {
    return structuredClone(this.parameters);
  }
  async setParameters(parameters: RTCRtpSendParameters): Promise<void> {
    this.parameters = parameters;
  }
  async replaceTrack(track: unknown): Promise<void> {
    this.replaced.push(track);
  }
}

export class FakePeer extends EventTarget {
  static readonly all: FakePeer[] = [];
  iceGatheringState: RTCIceGatheringState = 'new';
  connectionState: RTCPeerConnectionState = 'new';
  localDescription: { type: string; sdp: string } | null = null;
  remote: RTCSessionDescriptionInit | undefined;
  closed = false;
  sctp = { maxMessageSize: 262_144 };
  onconnectionstatechange: (() => void) | null = null;
  readonly channels: FakeChannel[] = [];
  transceiver: { track: unknown; init: RTCRtpTransceiverInit; sender: FakeSender; setCodecPreferences: () => void } | undefined;
  constructor(readonly configuration: RTCConfiguration) {
    super();
    FakePeer.all.push(this);
  }
  createDataChannel(label: string, init?: RTCDataChannelInit): FakeChannel {
    const channel = new FakeChannel(label, init);
    this.channels.push(channel);
    return channel;
  }
  addTransceiver(track: unknown, init: RTCRtpTransceiverInit) {
    const sender = new FakeSender();
    sender.parameters.encodings = structuredClone(init.sendEncodings ?? []);
    this.transceiver = { track, init, sender, setCodecPreferences: () => undefined };
    return this.transceiver;
  }
  async setLocalDescription(): Promise<void> {
    this.localDescription = { type: 'offer', sdp: `offer ${FakePeer.all.length}` };
    this.iceGatheringState = 'gathering';
  }
  /** ICE gathering finishes: the offer holds every candidate now. */
  gathered(): void {
    this.iceGatheringState = 'complete';
    this.localDescription!.sdp += ' candidates';
    this.dispatchEvent(new Event('icegatheringstatechange'));
  }
  async setRemoteDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.remote = description;
  }
  state(state: RTCPeerConnectionState): void {
    this.connectionState = state;
    this.onconnectionstatechange?.();
  }
  close(): void {
    this.closed = true;
    this.connectionState = 'closed';
  }
  async getStats(): Promise<Map<string, unknown>> {
    return new Map();
  }
  channel(label: string): FakeChannel {
    return this.channels.find((channel) => channel.label === label)!;
  }
}
