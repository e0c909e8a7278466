import type { MeasuredLink } from '../link/measured-link.ts';
import { linkCaption } from '../ui/link-text.ts';

interface Props {
  link: MeasuredLink;
  /** data-testid: each figure's caption is found by its own. */
  testId: string;
}

/** What the figures beside it were measured on: the link the gateway's hello named, marked when emulated. */
export function LinkCaption({ link, testId }: Props) {
  return (
    <p
      className={`link-caption${link.emulated ? ' is-emulated' : ''}`}
      data-testid={testId}
      data-spec={link.spec}
      data-emulated={link.emulated}
    >
      {linkCaption(link)}
    </p>
  );
}
