/**
 * Which links the dashboard's stream can run behind, checked as the gateway checks `?link=` on the WebSocket
 * (with the link lab's own parser, `@sightline/shared/link`), so a spec the gateway would refuse is said on
 * the page as it is typed and never reaches the gateway. A WebSocket is a byte stream: rate, queue, delay and
 * jitter, never loss (TCP resends a lost segment); and the gateway reads no file a client names (traces).
 * Pure, so every message is unit-tested.
 */
import {
  formatLinkSpec,
  isTransparent,
  LINK_PRESETS,
  linkLabel,
  LinkSpecError,
  parseLinkSpec,
  streamLimitations,
  type LinkPreset,
} from '@sightline/shared/link';

/** The spec of no emulated link: the path as it is. */
export const NO_LINK_SPEC = 'none';

export type LinkCheck =
  | {
      ok: true;
      /** The canonical spec (a preset's name when it is one unchanged, `none` for no emulation): what `?link=` carries. */
      spec: string;
      /** "LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated", or "No link emulation". */
      label: string;
      emulated: boolean;
    }
  | { ok: false; message: string };

/** Whether the dashboard's WebSocket can run behind `text`: the link's canonical spec and label, or a one-line reason. */
export function checkLink(text: string): LinkCheck {
  let profile;
  try {
    profile = parseLinkSpec(text);
  } catch (error) {
    return { ok: false, message: error instanceof LinkSpecError ? error.message : `bad link spec: ${String(error)}` };
  }
  if (profile.up.traceFile || profile.down.traceFile) {
    return { ok: false, message: 'a trace-driven link reads a file: it is for the benchmark (pnpm bench --link), not for the dashboard' };
  }
  const limits = bothWays(streamLimitations(profile));
  if (limits.length > 0) {
    return {
      ok: false,
      message: `not on the dashboard's WebSocket: ${limits.join('; ')} (as root, in the benchmark)`,
    };
  }
  if (isTransparent(profile.up) && isTransparent(profile.down))
    return { ok: true, spec: NO_LINK_SPEC, label: 'No link emulation', emulated: false };
  return { ok: true, spec: formatLinkSpec(profile), label: linkLabel(profile), emulated: true };
}

/** "loss (up): why" and "loss (down): why" said once, as "loss (up and down): why". */
function bothWays(limits: readonly string[]): string[] {
  const [up, down, ...rest] = limits;
  if (up === undefined || down === undefined || rest.length > 0) return [...limits];
  const general = up.replace(' (up)', ' (up and down)');
  return general !== up && down.replace(' (down)', ' (up and down)') === general ? [general] : [up, down];
}

/** The presets a WebSocket can run (every one today: none has loss), `none` first. */
export const LINK_CHOICES: readonly LinkPreset[] = LINK_PRESETS.filter((preset) => checkLink(preset.name).ok);

/** The preset a canonical spec names, if it is one. */
export function presetOf(spec: string): LinkPreset | undefined {
  return LINK_CHOICES.find((preset) => preset.name === spec);
}
