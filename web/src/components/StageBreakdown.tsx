import type { DashboardSnapshot, LatestResult } from '../app/dashboard-snapshot.ts';
import { formatBytes, formatMs } from '../ui/format.ts';

interface Props {
  latest: LatestResult | undefined;
  encode: DashboardSnapshot['lastEncode'];
  encoderPath: DashboardSnapshot['encoderPath'];
}

/** The frame function's stages, as every route reports them; the queue only where there is a server. */
const STAGES = [
  { key: 'decodeMs', label: 'Decode', colour: '#f5a524' },
  { key: 'preprocessMs', label: 'Pre', colour: '#4cc9f0' },
  { key: 'inferenceMs', label: 'Inference', colour: '#5fd08a' },
  { key: 'postprocessMs', label: 'Post', colour: '#b197fc' },
] as const;
const QUEUE = { key: 'queueMs', label: 'Queue', colour: '#7d8799' };
/** This device's inference in its chart line's colour. */
const DEVICE_INFERENCE_COLOUR = '#c0eb75';

interface Part {
  key: string;
  label: string;
  colour: string;
  value: number;
}

/**
 * The latest frame's parts: its stages, then what surrounds them. With a server (the gateway): its queue
 * first, the rest of its own time, then network + client; without (this device): the hand-offs to the
 * inference worker and back.
 */
function partsOf(latest: LatestResult): { parts: Part[]; label: string } {
  const { fullMs, stages, serverMs, queueMs } = latest;
  const parts: Part[] = STAGES.map((stage) => ({
    ...stage,
    colour: stage.key === 'inferenceMs' && latest.path === 'device' ? DEVICE_INFERENCE_COLOUR : stage.colour,
    value: stages[stage.key],
  }));
  if (queueMs !== undefined) parts.unshift({ ...QUEUE, value: queueMs });
  const inStages = parts.reduce((sum, part) => sum + part.value, 0);
  if (serverMs === undefined) {
    parts.push({ key: 'handoff', label: 'Worker hand-off', colour: '#3b4556', value: Math.max(0, fullMs - inStages) });
    return { parts, label: `On this device ${formatMs(fullMs)}, inference ${formatMs(stages.inferenceMs)}` };
  }
  parts.push(
    { key: 'other', label: 'Other server', colour: '#3b4556', value: Math.max(0, serverMs - inStages) },
    { key: 'network', label: 'Network + client', colour: '#ff7b9c', value: Math.max(0, fullMs - serverMs) },
  );
  return { parts, label: `Full ${formatMs(fullMs)}, server ${formatMs(serverMs)}, inference ${formatMs(stages.inferenceMs)}` };
}

/**
 * Where the latest frame's time went: gateway stages, then network + client codec; or, for a frame
 * computed on this device, the inference worker's stages and the hand-offs to and from it.
 */
export function StageBreakdown({ latest, encode, encoderPath }: Props) {
  if (!latest) return <p className="empty">Waiting for the first answer.</p>;
  const { fullMs } = latest;
  const { parts, label } = partsOf(latest);
  const total = Math.max(fullMs, 1e-6);
  return (
    <div className="timings" data-path={latest.path}>
      <p className="timings__path">{latest.path === 'device' ? 'Computed on this device' : 'Computed by the gateway'}</p>
      <div className="timings__bar" role="img" aria-label={label}>
        {parts.map((part) =>
          part.value > 0 ? (
            <span
              key={part.key}
              style={{ width: `${(part.value / total) * 100}%`, background: part.colour }}
              title={`${part.label}: ${formatMs(part.value)}`}
            />
          ) : null,
        )}
      </div>
      <dl className="timings__list">
        {parts.map((part) => (
          <div key={part.key}>
            <dt>
              <span className="timings__swatch" style={{ background: part.colour }} aria-hidden="true" />
              {part.label}
            </dt>
            <dd>{formatMs(part.value)}</dd>
          </div>
        ))}
        <div className="timings__total">
          <dt>{latest.path === 'device' ? 'On this device' : 'Full'}</dt>
          <dd>{formatMs(fullMs)}</dd>
        </div>
      </dl>
      {encode && (
        <p className="timings__encode" data-testid="captured-size" data-width={encode.width} data-height={encode.height}>
          Captured {encode.width}×{encode.height} JPEG, {formatBytes(encode.bytes)}, in {formatMs(encode.encodeMs)}
          {encoderPath === 'worker' ? ' (worker)' : ' (main thread)'}
        </p>
      )}
    </div>
  );
}
