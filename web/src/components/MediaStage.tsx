import { useEffect, useRef, type CSSProperties, type ReactNode } from 'react';
import type { DashboardController } from '../app/dashboard-controller.ts';
import type { DashboardSnapshot } from '../app/dashboard-snapshot.ts';
import type { CameraErrorKind } from '../capture/camera.ts';
import { columnLabel } from '../ui/codec-columns.ts';
import { formatMs } from '../ui/format.ts';
import { secondsUntil, VERSION_MISMATCH_HELP, VERSION_MISMATCH_TITLE } from '../ui/connection-text.ts';
import { onDeviceStatusText } from '../ui/on-device-text.ts';
import { BOX_MODE_LABELS, type BoxMode } from '../tracking/box-mode.ts';
import { linkBadgeText } from '../ui/link-text.ts';
import { leadText } from '../ui/tracking-text.ts';
import { useNow } from '../ui/use-now.ts';

interface Props {
  controller: DashboardController;
  snapshot: DashboardSnapshot;
  mirror: boolean;
  /** Predicted or raw boxes (shown over the picture with how far ahead or behind they are). */
  boxes: BoxMode;
  onUseFile: () => void;
  onRetryCamera: () => void;
  onResume: () => void;
  /** Load the model on this device again after it failed. */
  onRetryDevice?: () => void;
  /** Drawn over the picture, above the boxes (the camera's lines and zones). */
  layer?: ReactNode;
}

/** The picture with the detection overlay on top, plus what is going on when nothing is streaming. */
export function MediaStage({ controller, snapshot, mirror, boxes, onUseFile, onRetryCamera, onResume, onRetryDevice, layer }: Props) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const imageRef = useRef<HTMLImageElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    const video = videoRef.current;
    const image = imageRef.current;
    const canvas = canvasRef.current;
    if (!video || !image || !canvas) return;
    return controller.attach({ video, image }, canvas);
  }, [controller]);

  const { source, latest, phase } = snapshot;
  const showImage = source.kind === 'file' && source.file?.kind === 'image';
  const mirrorClass = mirror ? ' is-mirrored' : '';
  // On a phone the stage takes the picture's own shape (styles.css); elsewhere it stays 16:9.
  const aspect = source.width && source.height ? { '--source-aspect': `${source.width} / ${source.height}` } : undefined;
  return (
    <div className="stage-area" data-testid="stage-area">
      <div className="stage" data-phase={phase} style={aspect as CSSProperties | undefined}>
        <video
          ref={videoRef}
          data-testid="video"
          className={`stage__media${mirrorClass}`}
          hidden={showImage}
          muted
          playsInline
          autoPlay
          aria-label="Live picture being analysed"
        />
        <img
          ref={imageRef}
          data-testid="still-image"
          className={`stage__media${mirrorClass}`}
          hidden={!showImage}
          alt="Image being analysed"
        />
        <canvas ref={canvasRef} data-testid="overlay" className="stage__overlay" aria-hidden="true" />
        {layer}
        {snapshot.measuredOn.emulated && (
          <span className="link-badge" data-testid="link-badge" data-spec={snapshot.measuredOn.spec}>
            {linkBadgeText(snapshot.measuredOn)}
          </span>
        )}

        <StageMessage
          snapshot={snapshot}
          onUseFile={onUseFile}
          onRetryCamera={onRetryCamera}
          onResume={onResume}
          {...(onRetryDevice ? { onRetryDevice } : {})}
        />
      </div>

      {/* Over the picture's bottom edge on a wide screen; under it on a phone, where it would cover it (a row kept in place). */}
      <div className="stage__hud" data-testid="stage-hud" aria-hidden="true">
        {latest && phase === 'streaming' && performance.now() - latest.receivedAt < 1500 && (
          <>
            <span className="chip">
              {latest.detections.length} {latest.detections.length === 1 ? 'object' : 'objects'}
            </span>
            <span className="chip">{formatMs(latest.fullMs)}</span>
            <span className="chip chip--accent" data-testid="hud-path" data-path={latest.path}>
              {latest.codec
                ? `Gateway · ${columnLabel({ codec: latest.codec, transport: latest.transport ?? 'websocket' })}`
                : 'This device'}
            </span>
            <span className="chip" data-testid="hud-boxes" data-mode={boxes}>
              {BOX_MODE_LABELS[boxes]} · {leadText(boxes, snapshot.tracking.leadMs)}
            </span>
          </>
        )}
      </div>
    </div>
  );
}

function cameraErrorTitle(kind: CameraErrorKind): string {
  switch (kind) {
    case 'no-camera':
      return 'No camera found';
    case 'permission-denied':
      return 'Camera access denied';
    case 'device-unavailable':
      return 'Selected camera not available';
    default:
      return 'Camera unavailable';
  }
}

function StageMessage({
  snapshot,
  onUseFile,
  onRetryCamera,
  onResume,
  onRetryDevice,
}: Omit<Props, 'controller' | 'mirror' | 'boxes' | 'layer'>) {
  const { source, connection, phase } = snapshot;
  const countdown = useNow(connection.state === 'reconnecting' && connection.retryAt !== undefined);

  if (connection.versionMismatch) {
    // First, whatever else is wrong: nothing streams until the page is reloaded. Not a live region: the
    // connection pill's status sentence already announces it once.
    return (
      <div className="stage__message stage__message--error" data-testid="version-mismatch">
        <h3>{VERSION_MISMATCH_TITLE}: reload the page</h3>
        <p>{VERSION_MISMATCH_HELP}</p>
        {connection.lastError && (
          <p>
            <small>{connection.lastError}</small>
          </p>
        )}
        <div className="stage__actions">
          <button type="button" className="button button--primary" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      </div>
    );
  }
  if (source.kind === 'camera' && source.status === 'error' && source.cameraError) {
    const noCamera = source.cameraError.kind === 'no-camera';
    return (
      <div className="stage__message stage__message--error" data-testid="camera-error" data-reason={source.cameraError.kind} role="alert">
        <h3>{cameraErrorTitle(source.cameraError.kind)}</h3>
        <p>{source.cameraError.message}</p>
        <div className="stage__actions">
          <button type="button" className="button button--primary" onClick={onUseFile}>
            Use a video or image file
          </button>
          {!noCamera && (
            <button type="button" className="button" onClick={onRetryCamera}>
              Try the camera again
            </button>
          )}
        </div>
      </div>
    );
  }
  if (source.kind === 'file' && (source.status === 'needs-file' || source.status === 'error')) {
    return (
      <div
        className={`stage__message${source.status === 'error' ? ' stage__message--error' : ''}`}
        role={source.status === 'error' ? 'alert' : undefined}
      >
        <h3>{source.status === 'error' ? 'That file cannot be used' : 'Choose a video or image'}</h3>
        <p>{source.fileError ?? 'Pick a local file: a video loops, an image is sent repeatedly.'}</p>
        <div className="stage__actions">
          <button type="button" className="button button--primary" onClick={onUseFile}>
            Choose a file…
          </button>
        </div>
      </div>
    );
  }
  if (source.status === 'starting' || source.status === 'idle') {
    return (
      <div className="stage__message stage__message--quiet" role="status">
        <span className="spinner" aria-hidden="true" />
        <p>{source.kind === 'camera' ? 'Starting the camera…' : 'Opening the file…'}</p>
      </div>
    );
  }
  if (phase === 'waiting-gateway') {
    const seconds = connection.retryAt !== undefined ? secondsUntil(connection.retryAt, countdown) : undefined;
    // Not a live region: the connection pill announces state changes; this banner's seconds tick.
    return (
      <div className="stage__banner">
        <span className="spinner spinner--small" aria-hidden="true" />
        {connection.state === 'connecting'
          ? 'Connecting to the gateway…'
          : seconds !== undefined
            ? `Gateway unreachable · frames paused · retrying in ${seconds} s`
            : connection.state === 'closed'
              ? `Disconnected${connection.lastError ? `: ${connection.lastError}` : ''}`
              : 'Gateway unreachable · frames paused · retrying…'}
      </div>
    );
  }
  if (phase === 'waiting-device') {
    const { onDevice } = snapshot;
    const failed = onDevice.status === 'error' || onDevice.status === 'unavailable';
    return (
      <div className={`stage__banner${failed ? ' stage__banner--error' : ''}`} data-testid="waiting-device">
        {!failed && <span className="spinner spinner--small" aria-hidden="true" />}
        {failed ? 'This device cannot run the model' : 'Loading the model on this device'}: {onDeviceStatusText(onDevice)}
        {failed && onRetryDevice && (
          <button type="button" className="button button--small" onClick={onRetryDevice}>
            Retry
          </button>
        )}
      </div>
    );
  }
  if (phase === 'streaming' && snapshot.rejectedStreak >= 3 && snapshot.lastRejection) {
    return (
      <div className="stage__banner stage__banner--error" role="status" title={snapshot.lastRejection.message}>
        Gateway rejects frames ({snapshot.lastRejection.code}): {snapshot.lastRejection.message}
      </div>
    );
  }
  if (phase === 'paused') {
    return (
      <div className="stage__banner" role="status">
        Paused: no frames are being sent.
        <button type="button" className="button button--small" onClick={onResume}>
          Resume
        </button>
      </div>
    );
  }
  return null;
}
