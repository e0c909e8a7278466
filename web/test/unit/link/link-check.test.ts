import { LINK_PRESET_NAMES } from '@sightline/shared/link';
import { describe, expect, it } from 'vitest';
import { checkLink, LINK_CHOICES, presetOf } from '../../../src/link/link-check.ts';

describe('checkLink', () => {
  it('takes a preset by name, in any case, as its name and label', () => {
    expect(checkLink('LTE')).toEqual({
      ok: true,
      spec: 'lte',
      label: expect.stringMatching(/^LTE · 40 ms RTT .*, emulated$/),
      emulated: true,
    });
  });

  it('writes a custom spec in its canonical form, which the gateway names in hello the same way', () => {
    const check = checkLink(' delay=40ms , bw=10mbit/2mbit ,jitter=5ms');
    expect(check).toMatchObject({ ok: true, emulated: true, label: expect.stringMatching(/^Custom · 80 ms RTT ±5, .*emulated$/) });
    expect(check.ok && checkLink(check.spec)).toEqual(check);
  });

  it('calls a link that changes nothing none, as the gateway does (no link in hello)', () => {
    expect(checkLink('none')).toEqual({ ok: true, spec: 'none', label: 'No link emulation', emulated: false });
    expect(checkLink('delay=0ms')).toMatchObject({ ok: true, spec: 'none', emulated: false });
  });

  it("says in one line what is wrong with a spec, in the parser's words", () => {
    for (const [text, reason] of [
      ['', /^empty link spec/],
      ['lt', /^unknown preset 'lt'; presets: none, lan, wifi, lte/],
      ['bw=fast', /^bad value 'fast' for bw: expected a rate such as 2mbit/],
      ['delay=5ms,jitter=10ms', /^jitter 10ms exceeds delay 5ms \(up\)/],
    ] as const) {
      const check = checkLink(text);
      expect(check.ok).toBe(false);
      if (!check.ok) {
        expect(check.message).toMatch(reason);
        expect(check.message).not.toContain('\n');
      }
    }
  });

  it('refuses loss, which a byte stream cannot emulate, saying where it can be', () => {
    const check = checkLink('lte,loss=1%');
    expect(check).toEqual({
      ok: false,
      message: expect.stringMatching(/^not on the dashboard's WebSocket: loss \(up and down\): .*loss needs the packet path/),
    });
  });

  it('refuses a trace file, which the gateway would not read for a client', () => {
    expect(checkLink('trace-up=/etc/passwd')).toEqual({ ok: false, message: expect.stringMatching(/trace-driven link reads a file/) });
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
