/**
 * A refused WHIP request, with the HTTP status and a reason string the HTTP layer sends as it is:
 * 400 for an offer we cannot answer or a link we cannot emulate, 404 for a session that is not there, 503 when the gateway takes
 * no more peers or is draining.
 */
export type WhipErrorCode =
  'bad_sdp' | 'unsupported_media' | 'bad_link' | 'bad_camera' | 'too_many_peers' | 'draining' | 'not_found' | 'negotiation_failed';

const STATUS: Record<WhipErrorCode, 400 | 404 | 503 | 500> = {
  bad_sdp: 400,
  unsupported_media: 400,
  bad_link: 400,
  bad_camera: 400,
  too_many_peers: 503,
  draining: 503,
  not_found: 404,
  negotiation_failed: 500,
};

export class WhipError extends Error {
  readonly code: WhipErrorCode;
  readonly status: 400 | 404 | 503 | 500;

  constructor(code: WhipErrorCode, reason: string) {
    super(reason);
    this.name = 'WhipError';
    this.code = code;
    this.status = STATUS[code];
  }
}
