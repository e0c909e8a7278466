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
  webRtcLinkText,
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
    expect(customLinkMessage('  ')).toEqual({ valid: false, text: expect.stringMatching(/^Type a preset or a spec, e\.g\. bw=2mbit/) });
    expect(customLinkMessage('bw=fast')).toEqual({
      valid: false,
      text: expect.stringMatching(/^Bad value 'fast' for bw: expected a rate/),
    });
    expect(customLinkMessage('delay=20ms,loss=1%').text).toBe(
      "Not on the dashboard's WebSocket: loss (up and down): a byte stream cannot lose a TCP segment; loss needs the packet path (as root, in the benchmark)",
    );
    expect(customLinkMessage('delay=20ms,loss=1%/none').text).toMatch(
      /^Not on the dashboard's WebSocket: loss \(up\): [^;]+; loss needs the packet path \(as/,
    );
    expect(customLinkMessage('delay=150ms')).toEqual({ valid: true, text: 'Runs behind Custom · 300 ms RTT, emulated.' });
    expect(customLinkMessage('none')).toEqual({ valid: true, text: 'No emulation: the network as it is.' });
  });

  it('says why a link was refused as far as the page can tell, and where the stream stays', () => {
    expect(refusalText({ id: 1, spec: 'lte', instead: 'none', cause: 'not-this-machine' })).toBe(
      'The gateway refused the link LTE: it emulates links only for a browser on its own machine, or with the access token, and this page is on another device. The stream stays on None.',
    );
    expect(refusalText({ id: 2, spec: 'delay=150ms', instead: '3g', cause: 'unknown', detail: 'gateway unreachable (code 1006)' })).toBe(
      'The gateway refused the link Custom · 300 ms RTT: a browser is not told why a WebSocket was refused (gateway unreachable (code 1006)). The stream stays on 3G.',
    );
  });

  it('says a switch is under way only while it is', () => {
    expect(switchingText({ inForce: NO_LINK, target: 'lte', switching: true })).toMatch(/^Putting the stream behind LTE: /);
    expect(switchingText({ inForce: LTE, target: 'lte', switching: false })).toBeUndefined();
    expect(switchingText({ inForce: NO_LINK, target: 'lte', switching: false })).toBe(
      'The gateway runs this connection behind no emulated link, not LTE: the figures are labelled with what its greeting names.',
    );
  });

  it('says a link chosen is not applied to WebRTC, and nothing without one', () => {
    expect(webRtcLinkText('none')).toBeUndefined();
    expect(webRtcLinkText('lte')).toBe(
      'Not applied to WebRTC: the gateway puts only its WebSocket behind LTE; the WebRTC connection runs on the network as it is, and its figures say so.',
    );
  });
});
