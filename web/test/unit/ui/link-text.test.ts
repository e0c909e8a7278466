import { describe, expect, it } from 'vitest';
import { LINK_CHOICES } from '../../../src/link/link-check.ts';
import { NO_LINK } from '../../../src/link/measured-link.ts';
import {
  customLinkMessage,
  linkBadgeText,
  linkCaption,
  linkName,
  presetHint,
  presetOptionText,
  refusalText,
  switchingText,
  websocketFallbackText,
} from '../../../src/ui/link-text.ts';

const LTE = { spec: 'lte', label: 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated', emulated: true };

describe('link words', () => {
  it('offers each preset with its round trip, and its sources as a hint', () => {
    expect(LINK_CHOICES.map(presetOptionText)).toEqual([
      'None',
      'LAN · 0.5 ms RTT',
      'Wi-Fi · 20 ms RTT',
      'LTE · 40 ms RTT',
      'LTE, congested · 80 ms RTT',
      '3G · 64 ms RTT',
      'Satellite (GEO) · 600 ms RTT',
    ]);
    const lte = LINK_CHOICES.find((preset) => preset.name === 'lte')!;
    expect(presetHint(lte).split('\n')[0]).toBe(LTE.label);
    expect(presetHint(lte)).toContain('Ofcom');
  });

  it('names a link shortly: a preset by its title, a custom one by its label up to the rates', () => {
    expect(linkName('none')).toBe('None');
    expect(linkName('lte-congested')).toBe('LTE, congested');
    expect(linkName('bw=2mbit/10mbit,delay=40ms')).toBe('Custom · 80 ms RTT');
    expect(linkName('x', 'Custom · 300 ms RTT, emulated')).toBe('Custom · 300 ms RTT');
  });

  it('captions a figure with the link it was measured on, and says when none was emulated', () => {
    expect(linkCaption(LTE)).toBe(`Measured on ${LTE.label}`);
    expect(linkCaption(NO_LINK)).toBe('Measured on no emulated link: the network as it is');
    expect(linkBadgeText(LTE)).toBe('Emulated link · LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s');
  });

  it('checks the custom field as it is typed: a hint while empty, the reason when wrong, the label when right', () => {
    expect(customLinkMessage('  ', 'websocket')).toEqual({
      valid: false,
      text: expect.stringMatching(/^Type a preset or a spec, e\.g\. bw=2mbit/),
    });
    expect(customLinkMessage('bw=fast', 'websocket')).toEqual({
      valid: false,
      text: expect.stringMatching(/^Bad value 'fast' for bw: expected a rate/),
    });
    expect(customLinkMessage('delay=20ms,loss=1%', 'websocket').text).toBe(
      "Not on the dashboard's WebSocket: loss (up and down): a byte stream cannot lose a TCP segment; loss needs the packet path (Transport WebRTC here, or the benchmark's as root)",
    );
    expect(customLinkMessage('delay=20ms,loss=1%/none', 'websocket').text).toMatch(
      /^Not on the dashboard's WebSocket: loss \(up\): [^;]+; loss needs the packet path \(Transport WebRTC/,
    );
    expect(customLinkMessage('delay=150ms', 'websocket')).toEqual({ valid: true, text: 'Runs behind Custom · 300 ms RTT, emulated.' });
    expect(customLinkMessage('none', 'websocket')).toEqual({ valid: true, text: 'No emulation: the network as it is.' });
  });

  it('takes loss in the custom field over WebRTC, where the link loses datagrams', () => {
    expect(customLinkMessage('delay=20ms,loss=1%', 'webrtc')).toEqual({
      valid: true,
      text: 'Runs behind Custom · 40 ms RTT, 1% loss, emulated.',
    });
    expect(customLinkMessage('bw=fast', 'webrtc')).toMatchObject({ valid: false });
    // A loss link has a name too (the refusal and switching lines use it).
    expect(linkName('delay=20ms,loss=1%')).toBe('Custom · 40 ms RTT');
  });

  it('says why a link was refused as far as the page can tell, and where the stream stays', () => {
    expect(refusalText({ id: 1, spec: 'lte', instead: 'none', cause: 'not-this-machine' })).toBe(
      'The gateway refused the link LTE: it emulates links only for a browser on its own machine, or with the access token, and this page is on another device. The stream stays on None.',
    );
    expect(refusalText({ id: 2, spec: 'delay=150ms', instead: '3g', cause: 'unknown', detail: 'gateway unreachable (code 1006)' })).toBe(
      'The gateway refused the link Custom · 300 ms RTT: a browser is not told why a WebSocket was refused (gateway unreachable (code 1006)). The stream stays on 3G.',
    );
    // WHIP answers with the reason: it is said as the gateway put it.
    expect(
      refusalText({
        id: 3,
        spec: 'lte',
        instead: 'none',
        cause: 'stated',
        detail: 'link emulation is only for clients on this machine, or with the access token',
      }),
    ).toBe(
      'The gateway refused the link LTE: link emulation is only for clients on this machine, or with the access token. The stream stays on None.',
    );
  });

  it('says a switch is under way only while it is', () => {
    expect(switchingText({ via: 'websocket', inForce: NO_LINK, target: 'lte', switching: true })).toBe(
      "Putting the stream behind LTE: the frames out are answered first, then the gateway's socket reconnects with it.",
    );
    expect(switchingText({ via: 'webrtc', inForce: NO_LINK, target: 'lte', switching: true })).toBe(
      'Putting the stream behind LTE: the frames out are answered first, then a new WebRTC session (WHIP) is made behind it.',
    );
    expect(switchingText({ via: 'webrtc', inForce: LTE, target: 'lte', switching: false })).toBeUndefined();
    expect(switchingText({ via: 'websocket', inForce: NO_LINK, target: 'lte', switching: false })).toBe(
      'The gateway runs this connection behind no emulated link, not LTE: the figures are labelled with what its greeting names.',
    );
  });

  it('says which link the WebSocket runs instead of one with loss', () => {
    expect(websocketFallbackText('delay=20ms,loss=1%', 'delay=20ms')).toBe(
      'The WebSocket cannot run the link Custom · 40 ms RTT, 1% loss: a byte stream cannot lose a TCP segment (loss needs Transport WebRTC); Custom · 40 ms RTT is used instead.',
    );
    expect(websocketFallbackText('loss=1%', 'none')).toMatch(
      /^The WebSocket cannot run the link Custom · 1% loss: .*; None is used instead\.$/,
    );
  });
});
