import { LINK_PRESET_NAMES } from '@sightline/shared/link';
import { describe, expect, it } from 'vitest';
import { checkLink, LINK_CHOICES, presetOf, runnableLink, websocketLinkOf } from '../../../src/link/link-check.ts';

describe('checkLink', () => {
  it('takes a preset by name, in any case, as its name and label', () => {
    expect(checkLink('LTE', 'websocket')).toEqual({
      ok: true,
      spec: 'lte',
      label: expect.stringMatching(/^LTE · 40 ms RTT .*, emulated$/),
      emulated: true,
    });
  });

  it('writes a custom spec in its canonical form, which the gateway names in hello the same way', () => {
    const check = checkLink(' delay=40ms , bw=10mbit/2mbit ,jitter=5ms', 'websocket');
    expect(check).toMatchObject({ ok: true, emulated: true, label: expect.stringMatching(/^Custom · 80 ms RTT ±5, .*emulated$/) });
    expect(check.ok && checkLink(check.spec, 'websocket')).toEqual(check);
  });

  it('calls a link that changes nothing none, as the gateway does (no link in hello)', () => {
    expect(checkLink('none', 'websocket')).toEqual({ ok: true, spec: 'none', label: 'No link emulation', emulated: false });
    expect(checkLink('delay=0ms', 'websocket')).toMatchObject({ ok: true, spec: 'none', emulated: false });
  });

  it("says in one line what is wrong with a spec, in the parser's words", () => {
    for (const [text, reason] of [
      ['', /^empty link spec/],
      ['lt', /^unknown preset 'lt'; presets: none, lan, wifi, lte/],
      ['bw=fast', /^bad value 'fast' for bw: expected a rate such as 2mbit/],
      ['delay=5ms,jitter=10ms', /^jitter 10ms exceeds delay 5ms \(up\)/],
    ] as const) {
      const check = checkLink(text, 'webrtc');
      expect(check.ok).toBe(false);
      if (!check.ok) {
        expect(check.message).toMatch(reason);
        expect(check.message).not.toContain('\n');
      }
    }
  });

  it('refuses loss on the WebSocket, which a byte stream cannot emulate, saying where it can be', () => {
    const check = checkLink('lte,loss=1%', 'websocket');
    expect(check).toEqual({
      ok: false,
      message: expect.stringMatching(
        /^not on the dashboard's WebSocket: loss \(up and down\): .*loss needs the packet path \(Transport WebRTC here/,
      ),
    });
  });

  it("takes loss over WebRTC, whose datagrams the gateway's relay may lose, labelled with it", () => {
    expect(checkLink('delay=20ms,loss=1%', 'webrtc')).toEqual({
      ok: true,
      spec: 'delay=20ms,loss=1%',
      label: 'Custom · 40 ms RTT, 1% loss, emulated',
      emulated: true,
    });
    expect(checkLink('lte', 'webrtc')).toMatchObject({ ok: true, spec: 'lte' });
  });

  it('refuses a trace file, which the gateway would not read for a client, on either transport', () => {
    for (const transport of ['websocket', 'webrtc'] as const)
      expect(checkLink('trace-up=/etc/passwd', transport)).toEqual({
        ok: false,
        message: expect.stringMatching(/trace-driven link reads a file/),
      });
  });
});

describe('runnableLink', () => {
  it('is the canonical spec of a link some connection can run (loss too), and nothing for one none can', () => {
    expect(runnableLink('LTE')).toBe('lte');
    expect(runnableLink('loss=1%,delay=20ms')).toBe('delay=20ms,loss=1%');
    expect(runnableLink('bw=fast')).toBeUndefined();
    expect(runnableLink('trace-up=/etc/passwd')).toBeUndefined();
  });
});

describe('websocketLinkOf', () => {
  it('is the link itself when a byte stream can run it, else the same without its loss', () => {
    expect(websocketLinkOf('lte')).toBe('lte');
    expect(websocketLinkOf('none')).toBe('none');
    expect(websocketLinkOf('bw=2mbit/10mbit,delay=40ms')).toBe('bw=2mbit/10mbit,delay=40ms');
    expect(websocketLinkOf('delay=20ms,loss=1%')).toBe('delay=20ms');
    expect(websocketLinkOf('delay=20ms,loss=1%/none')).toBe('delay=20ms');
    // A preset with loss added is the preset again; loss alone is no link at all.
    expect(checkLink(runnableLink('lte,loss=1%')!, 'websocket').ok).toBe(false);
    expect(websocketLinkOf(runnableLink('lte,loss=1%')!)).toBe('lte');
    expect(websocketLinkOf('loss=ge:5%:50%')).toBe('none');
  });
});

describe('LINK_CHOICES', () => {
  it('offers every preset of the link lab, none first', () => {
    expect(LINK_CHOICES.map((preset) => preset.name)).toEqual(LINK_PRESET_NAMES);
    expect(LINK_CHOICES[0]!.emulated).toBe(false);
    expect(presetOf('3g')?.title).toBe('3G');
    expect(presetOf('bw=2mbit')).toBeUndefined();
  });
});
