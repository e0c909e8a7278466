/**
 * The links of `pnpm bench:links`: the link lab's presets (docs: Link lab, with their sources), and two more
 * made from them: LTE with a 2 Mbit/s uplink (the slow uplink issue 27's video goal is set on), and LTE
 * losing 1% of its packets each way (real TCP under loss: the packet path, root only). Any other `--link`
 * spec can be named too.
 */
import { findPreset, linkLabel, LinkSpecError, parseLinkSpec } from '@sightline/shared/link';
import type { LinkEntry } from './cell.ts';

/** Links that are not presets but have a name here: the spec, and what the table calls them. */
export const NAMED_LINKS: Readonly<Record<string, { spec: string; title: string }>> = {
  'lte-2mbit-up': { spec: 'lte,bw=2mbit/29.5mbit', title: 'LTE, 2 Mbit/s uplink' },
  'lte-loss-1pct': { spec: 'lte,loss=1%', title: 'LTE, 1% loss each way' },
};

/** The table's links, in its order: loopback first, then faster to slower, then the lossy one. */
export const TABLE_LINKS: readonly string[] = [
  'none',
  'lan',
  'wifi',
  'lte',
  'lte-2mbit-up',
  '3g',
  'lte-congested',
  'satellite',
  'lte-loss-1pct',
];

/** A preset, a name of NAMED_LINKS, or a spec (then named by the spec itself); throws LinkSpecError for a bad one. */
export function resolveLink(nameOrSpec: string): LinkEntry {
  const named = NAMED_LINKS[nameOrSpec];
  if (named) return { name: nameOrSpec, title: named.title, spec: named.spec, profile: parseLinkSpec(named.spec) };
  const preset = findPreset(nameOrSpec);
  if (preset)
    return {
      name: preset.name,
      title: preset.name === 'none' ? 'none (loopback)' : preset.title,
      spec: preset.name,
      profile: preset.profile,
    };
  const profile = parseLinkSpec(nameOrSpec);
  return { name: nameOrSpec, title: linkLabel(profile).replace(/, emulated$/, ''), spec: nameOrSpec, profile };
}

/** Every entry of a comma-separated list; an error names the entry that is wrong. */
export function resolveLinks(list: readonly string[]): LinkEntry[] {
  return list.map((item) => {
    try {
      return resolveLink(item);
    } catch (error) {
      if (error instanceof LinkSpecError) throw new LinkSpecError(`link '${item}': ${error.message}`);
      throw error;
    }
  });
}
