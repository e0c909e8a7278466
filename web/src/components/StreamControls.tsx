import type { Limits, ModelInfo } from '@sightline/shared/protocol';
import { frameSizeChoices, parseFrameSize, targetSize, type Size } from '../capture/frame-size.ts';
import type { StreamSettings } from '../app/settings.ts';
import { abPartner, CODEC_LABELS } from '../transport/codec-policy.ts';
import { clampInFlight, MAX_IN_FLIGHT, MIN_IN_FLIGHT } from '../transport/frame-sender.ts';
import { isVideoCodec, type StreamCodec } from '../transport/stream-codecs.ts';
import { formatBitrate, VIDEO_BITRATE_STEPS_KBPS } from '../video/video-bitrate.ts';
import { Field } from './Field.tsx';
import { NumberInput } from './NumberInput.tsx';
import { RangeInput } from './RangeInput.tsx';

interface Props {
  settings: StreamSettings;
  sourceSize: Size | undefined;
  limits: Limits | undefined;
  nextCodec: StreamCodec;
  /** The model frames go to (what "Auto" frame size fits), once the model list is known. */
  model: ModelInfo | undefined;
  onChange: (patch: Partial<StreamSettings>) => void;
}

/** Wire and capture settings: A/B mode, flow control, frame size, JPEG quality, video bitrate (the codec itself is in StageBar). */
export function StreamControls({ settings, sourceSize, limits, nextCodec, model, onChange }: Props) {
  const sizes = frameSizeChoices(sourceSize);
  const nativeLabel = sourceSize ? `Native (${sourceSize.width}×${sourceSize.height})` : 'Native';
  const sizeValue = String(settings.frameSize);
  const sizeKnown = sizes.some((size) => String(size) === sizeValue);
  const auto = sourceSize && model ? targetSize(sourceSize, 'auto', model.input) : undefined;
  const autoLabel = auto ? `Auto (fits the model): ${auto.width}×${auto.height}` : 'Auto (fits the model)';
  const partner = abPartner(settings.codec);
  const track = settings.transport === 'webrtc' && isVideoCodec(settings.codec);
  const bitrates = VIDEO_BITRATE_STEPS_KBPS.includes(settings.videoBitrate)
    ? VIDEO_BITRATE_STEPS_KBPS
    : [...VIDEO_BITRATE_STEPS_KBPS, settings.videoBitrate].sort((a, b) => a - b);
  const sizeHint = model
    ? model.input.resize === 'stretch'
      ? `${model.title} stretches frames to ${model.input.width}×${model.input.height}: Auto keeps the short side at least ${Math.min(model.input.width, model.input.height)} px (never above the source).`
      : `${model.title} letterboxes frames into ${model.input.width}×${model.input.height}: Auto keeps the long side at least ${Math.max(model.input.width, model.input.height)} px (never above the source).`
    : 'Auto fits the frame to the model’s input once the model list is known.';
  return (
    <div className="controls-group">
      <div className="inline-fields">
        <label className="toggle">
          <input
            type="checkbox"
            data-testid="ab-mode"
            checked={settings.abMode}
            onChange={(event) => onChange({ abMode: event.target.checked })}
          />
          <span className="toggle__track" aria-hidden="true" />
          <span>A/B mode</span>
        </label>
        <label className="compact-number">
          <span>every</span>
          <NumberInput
            className="input input--number"
            data-testid="ab-every-input"
            min={1}
            max={1000}
            value={settings.abEvery}
            disabled={!settings.abMode}
            aria-label="Frames per codec block in A/B mode"
            onValue={(abEvery) => onChange({ abEvery })}
          />
          <span>frames</span>
        </label>
        <p className="field__hint inline-fields__hint">
          {track ? (
            'A video track carries one codec: A/B mode applies to frames sent by the page.'
          ) : settings.abMode ? (
            <>
              {CODEC_LABELS[settings.codec]} and {CODEC_LABELS[partner]} in turn, from the codec under the picture. Next:{' '}
              <strong>{CODEC_LABELS[nextCodec]}</strong>
            </>
          ) : (
            `Alternate ${CODEC_LABELS[settings.codec]} and ${CODEC_LABELS[partner]} in blocks, to compare them on the same scene.`
          )}
        </p>
      </div>

      <Field
        label="Frames in flight"
        htmlFor="in-flight-input"
        hintId="in-flight-hint"
        hint={
          settings.maxInFlight === 1
            ? 'Stop-and-wait: the next frame goes when the answer arrives.'
            : limits
              ? `Gateway runs ${limits.maxInFlight} at once and queues ${limits.queueLength}; older queued frames are dropped.`
              : 'Frames sent before earlier ones are answered.'
        }
      >
        <NumberInput
          id="in-flight-input"
          data-testid="in-flight-input"
          className="input input--number"
          min={MIN_IN_FLIGHT}
          max={MAX_IN_FLIGHT}
          value={settings.maxInFlight}
          aria-describedby="in-flight-hint"
          onValue={(value) => onChange({ maxInFlight: clampInFlight(value) })}
        />
      </Field>

      <Field
        label="Frame size (long side)"
        htmlFor="frame-size-select"
        hintId="frame-size-hint"
        hint={settings.frameSize === 'auto' ? sizeHint : undefined}
      >
        <select
          id="frame-size-select"
          data-testid="frame-size-select"
          className="input"
          value={sizeValue}
          aria-describedby={settings.frameSize === 'auto' ? 'frame-size-hint' : undefined}
          onChange={(event) => onChange({ frameSize: parseFrameSize(event.target.value) })}
        >
          {!sizeKnown && <option value={sizeValue}>{sizeValue} px</option>}
          {sizes.map((size) => (
            <option key={String(size)} value={String(size)}>
              {size === 'native' ? nativeLabel : size === 'auto' ? autoLabel : `${size} px`}
            </option>
          ))}
        </select>
      </Field>

      <Field
        label="Video bitrate"
        htmlFor="bitrate-select"
        hintId="bitrate-hint"
        hint={
          track
            ? 'The track’s ceiling: WebRTC’s congestion control sends at most this, less when the link is slower.'
            : isVideoCodec(settings.codec) || (settings.abMode && isVideoCodec(partner))
              ? 'The video encoder’s target; a keyframe every few seconds and whenever the gateway asks.'
              : 'Used by the video codecs (VP8, H.264, VP9, AV1).'
        }
      >
        <select
          id="bitrate-select"
          data-testid="bitrate-select"
          className="input"
          value={String(settings.videoBitrate)}
          aria-describedby="bitrate-hint"
          onChange={(event) => onChange({ videoBitrate: Number(event.target.value) })}
        >
          {bitrates.map((kbps) => (
            <option key={kbps} value={String(kbps)}>
              {formatBitrate(kbps)}
            </option>
          ))}
        </select>
      </Field>

      <Field label="JPEG quality" htmlFor="jpeg-quality-input" value={`${Math.round(settings.jpegQuality * 100)} %`}>
        <RangeInput
          id="jpeg-quality-input"
          min={0.1}
          max={1}
          step={0.05}
          value={settings.jpegQuality}
          onValue={(jpegQuality) => onChange({ jpegQuality })}
        />
      </Field>
    </div>
  );
}
