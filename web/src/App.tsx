import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ModelInfo } from '@sightline/shared/protocol';
import { DashboardController } from './app/dashboard-controller.ts';
import { linkedModel, modelFallback, type LostModel } from './app/model-choice.ts';
import { CHART_WINDOW, STATS_WINDOWS, type StreamSettings } from './app/settings.ts';
import { readUrlSettings, urlProblemsText } from './app/url-settings.ts';
import { websocketLinkOf } from './link/link-check.ts';
import { useAddressBar } from './app/use-address-bar.ts';
import { usePersistedSettings } from './app/use-persisted-settings.ts';
import type { SourceKind } from './capture/capture-source.ts';
import { modelFor } from './capture/frame-size.ts';
import { CodecStats } from './components/CodecStats.tsx';
import { DetectionsList } from './components/DetectionsList.tsx';
import { ErrorLog } from './components/ErrorLog.tsx';
import { Panel } from './components/Field.tsx';
import { Header } from './components/Header.tsx';
import { LatencyChart } from './components/LatencyChart.tsx';
import { LinkStats } from './components/LinkStats.tsx';
import { MediaStage } from './components/MediaStage.tsx';
import { ModelControls } from './components/ModelControls.tsx';
import { RouteComparison } from './components/RouteComparison.tsx';
import { RunOnControls } from './components/RunOnControls.tsx';
import { SourceControls } from './components/SourceControls.tsx';
import { StageBar } from './components/StageBar.tsx';
import { StageBreakdown } from './components/StageBreakdown.tsx';
import { StreamControls } from './components/StreamControls.tsx';
import { Toasts } from './components/Toasts.tsx';
import { TrackingPanel } from './components/TrackingPanel.tsx';
import { WebRtcStats } from './components/WebRtcStats.tsx';
import { CameraField } from './components/CameraField.tsx';
import { SceneEvents } from './scene-rules/EventsPanel.tsx';
import { RulesLayer } from './scene-rules/RulesLayer.tsx';
import { RulesToolbar } from './scene-rules/RulesToolbar.tsx';
import { useSceneStore } from './scene-rules/scene-store.ts';
import { websocketFallbackText } from './ui/link-text.ts';
import { unservedLinkText } from './ui/models-text.ts';
import { VERDICT_WINDOW } from './ui/route-comparison.ts';
import { codecFallback } from './video/codec-availability.ts';

export function App() {
  // The settings the page's address sets (url-settings.ts), read once: they win over the stored ones for this page load.
  const [link] = useState(() => readUrlSettings(window.location.search));
  const [settings, updateSettings] = usePersistedSettings(link.settings);
  // The first connection already runs behind the link chosen.
  const [controller] = useState(() => new DashboardController({ link: settings.link, camera: settings.camera }));
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot);
  const lastFile = useRef<File | undefined>(undefined);

  // The address bar follows the choices once the page was opened with some, or the person makes one.
  const [addressInUse, setAddressInUse] = useState(link.present);
  useAddressBar(settings, addressInUse);
  /** A choice the person made on the page (not one the page made for them, like a model fallback). */
  const choose = useCallback(
    (patch: Partial<StreamSettings>) => {
      setAddressInUse(true);
      updateSettings(patch);
    },
    [updateSettings],
  );

  // What the address asked for and cannot have is said once, in one notice (a toast, and the Errors panel keeps it).
  const reportedLink = useRef(false);
  useEffect(() => {
    if (reportedLink.current || link.problems.length === 0) return;
    reportedLink.current = true;
    controller.addressProblem(urlProblemsText(link.problems));
  }, [controller, link]);

  useEffect(() => {
    controller.start();
    return () => controller.stop();
  }, [controller]);

  useEffect(() => controller.updateSettings(settings), [controller, settings]);

  // The gateway refused the link chosen and the stream went back to the one before: the choice follows.
  const refusal = snapshot.link.refusal;
  useEffect(() => {
    if (refusal) updateSettings({ link: refusal.instead });
  }, [refusal, updateSettings]);

  // A link with loss while the WebSocket is chosen (it was chosen over WebRTC, or the address named it): a byte
  // stream cannot lose a segment, so the nearest link it can run instead (the same without loss), and a notice.
  useEffect(() => {
    if (settings.transport !== 'websocket') return;
    const instead = websocketLinkOf(settings.link);
    if (instead === settings.link) return;
    controller.linkUnavailable(websocketFallbackText(settings.link, instead));
    updateSettings({ link: instead });
  }, [controller, settings.link, settings.transport, updateSettings]);

  // Open the camera once the media elements are attached (MediaStage's effect runs first).
  useEffect(() => {
    controller.openCamera();
  }, [controller]);

  // Mirror a selfie camera by default; files and rear cameras are shown as they are. The address's `mirror`
  // holds for the first source.
  const { generation, kind, facingMode } = snapshot.source;
  useEffect(() => {
    if (generation === 1 && link.settings.mirror !== undefined) return;
    if (generation > 0) updateSettings({ mirror: kind === 'camera' && facingMode !== 'environment' });
  }, [generation, kind, facingMode, updateSettings, link]);

  // Pick the gateway's default model (and its threshold) once the list is known, and again whenever the
  // model chosen leaves the list (the list is kept current while the page is open): saying so.
  const models = snapshot.models.response;
  const [lostModel, setLostModel] = useState<LostModel | undefined>(undefined);
  // The model the address named, checked once against the first list: its default threshold unless the
  // address set one too; a notice, and the gateway's default, when it is not served.
  const linkPending = useRef(link.settings.model !== undefined);
  useEffect(() => {
    const name = link.settings.model;
    if (linkPending.current && name !== undefined) {
      const linked = linkedModel(models, name);
      if (!linked) return;
      linkPending.current = false;
      if (!linked.served) {
        controller.addressProblem(unservedLinkText(linked));
        updateSettings({ model: linked.instead.name, threshold: linked.instead.scoreThreshold });
      } else if (link.settings.threshold === undefined || linked.model.name !== name) {
        updateSettings({ model: linked.model.name, threshold: link.settings.threshold ?? linked.model.scoreThreshold });
      }
      return;
    }
    const fallback = modelFallback(models, settings.model);
    if (!fallback) return;
    updateSettings({ model: fallback.model.name, threshold: fallback.model.scoreThreshold });
    if (fallback.lost) {
      setLostModel(fallback.lost);
      controller.modelLost(fallback.lost, fallback.model);
    }
  }, [controller, link, models, settings.model, updateSettings]);

  // A codec the address or the stored settings asked for that this browser, the gateway or the transport cannot
  // use (known once the browser was probed and the gateway said hello): a notice, and the nearest one instead.
  const { codecChoices } = snapshot;
  useEffect(() => {
    const fallback = codecFallback(settings.codec, codecChoices);
    if (!fallback) return;
    controller.addressProblem(`${fallback.reason}.`);
    updateSettings({ codec: fallback.codec });
  }, [controller, codecChoices, settings.codec, updateSettings]);

  const chooseSource = useCallback(
    (next: SourceKind) => {
      if (next === 'camera') controller.openCamera(snapshot.source.deviceId);
      else controller.openFile(lastFile.current);
    },
    [controller, snapshot.source.deviceId],
  );

  const openFilePicker = useCallback(() => {
    if (snapshot.source.kind !== 'file') controller.openFile(lastFile.current);
    // The input exists in the page at all times; wait a tick so it is shown before it opens.
    setTimeout(() => document.getElementById('file-input')?.click(), 0);
  }, [controller, snapshot.source.kind]);

  const openFile = useCallback(
    (file: File) => {
      lastFile.current = file;
      controller.openFile(file);
    },
    [controller],
  );

  const chooseModel = useCallback(
    (info: ModelInfo) => {
      setLostModel(undefined);
      choose({ model: info.name, threshold: info.scoreThreshold });
    },
    [choose],
  );

  const sourceSize =
    snapshot.source.width && snapshot.source.height ? { width: snapshot.source.width, height: snapshot.source.height } : undefined;
  const activeRoutes = settings.runOn === 'both' ? (['gateway', 'device'] as const) : [settings.runOn];
  const retryDevice = useCallback(() => controller.retryOnDevice(), [controller]);
  // The camera's lines and zones, counts and events (any codec, any transport: they depend on the camera only).
  // Each part subscribes to it on its own: drawing and events render those parts, not the page.
  const scene = useSceneStore(settings.camera);

  return (
    <div className="app">
      <a className="skip-link" href="#controls">
        Skip to controls
      </a>
      <Header
        snapshot={snapshot}
        paused={settings.paused}
        onPause={(paused) => updateSettings({ paused })}
        onRetry={() => controller.retryConnection()}
      />
      <main className="layout">
        <aside className="column column--controls" id="controls" aria-label="Controls">
          <Panel title="Source" id="source-title">
            <SourceControls
              source={snapshot.source}
              mirror={settings.mirror}
              onSourceKind={chooseSource}
              onCamera={(deviceId) => controller.openCamera(deviceId)}
              onFile={openFile}
              onMirror={(mirror) => updateSettings({ mirror })}
            />
          </Panel>
          <Panel title="Detection" id="detection-title">
            <ModelControls
              models={snapshot.models}
              model={settings.model}
              lost={lostModel}
              threshold={settings.threshold}
              onModel={chooseModel}
              onThreshold={(threshold) => choose({ threshold })}
              onRetry={() => controller.retryModels()}
              onRefresh={() => controller.refreshModels()}
            />
          </Panel>
          <Panel title="Stream" id="stream-title">
            <CameraField value={settings.camera} onChange={(camera) => choose({ camera })} />
            <RunOnControls settings={settings} onDevice={snapshot.onDevice} onChange={choose} onRetry={retryDevice} />
            <StreamControls
              settings={settings}
              sourceSize={sourceSize}
              limits={snapshot.connection.hello?.limits}
              nextCodec={snapshot.nextCodec}
              model={modelFor(models, settings.model)}
              onChange={choose}
            />
          </Panel>
        </aside>

        <section className="column column--stage" aria-label="Live view">
          <MediaStage
            controller={controller}
            snapshot={snapshot}
            mirror={settings.mirror}
            boxes={settings.boxes}
            onUseFile={openFilePicker}
            onRetryCamera={() => controller.openCamera(snapshot.source.deviceId)}
            onResume={() => updateSettings({ paused: false })}
            onRetryDevice={retryDevice}
            layer={<RulesLayer store={scene} media={sourceSize} mirror={settings.mirror} />}
          />
          <RulesToolbar store={scene} />
          <StageBar settings={settings} codecChoices={snapshot.codecChoices} link={snapshot.link} onChange={choose} />
          <Panel
            title="Tracking"
            id="tracking-title"
            className="panel--tracking"
            actions={<span className="panel__note">one track per object, this device and the gateway alike</span>}
          >
            <TrackingPanel settings={settings} tracking={snapshot.tracking} onChange={choose} />
          </Panel>
          <Panel
            title="Latency"
            id="latency-title"
            className="panel--chart"
            actions={<span className="panel__note">ms · last {CHART_WINDOW} messages</span>}
          >
            <LatencyChart series={snapshot.chart} pingMs={snapshot.pingMs} link={snapshot.measuredOn} />
          </Panel>
        </section>

        <aside className="column column--side" aria-label="Results and statistics">
          <Panel
            title="Gateway or this device"
            id="paths-title"
            actions={<span className="panel__note">per frame, median of the last {VERDICT_WINDOW}</span>}
          >
            <RouteComparison
              comparison={snapshot.comparison}
              routes={snapshot.routes}
              pingMs={snapshot.pingMs}
              activeRoutes={activeRoutes}
              link={snapshot.measuredOn}
            />
          </Panel>
          {snapshot.transport.mode !== 'websocket' && (
            <Panel
              title="WebRTC"
              id="webrtc-title"
              actions={<span className="panel__note">the connection’s own statistics (getStats)</span>}
            >
              <WebRtcStats transport={snapshot.transport} />
            </Panel>
          )}
          <Panel
            title="Codec comparison"
            id="stats-title"
            actions={
              <>
                <label className="visually-hidden" htmlFor="stats-window">
                  Statistics window
                </label>
                <select
                  id="stats-window"
                  className="input input--small"
                  value={settings.statsWindow}
                  onChange={(event) => choose({ statsWindow: Number(event.target.value) })}
                >
                  {STATS_WINDOWS.map((size) => (
                    <option key={size} value={size}>
                      last {size.toLocaleString('en-US')}
                    </option>
                  ))}
                </select>
              </>
            }
          >
            <CodecStats columns={snapshot.codecColumns} link={snapshot.measuredOn} />
            <div className="export-row">
              <button type="button" className="button button--small" data-testid="export-csv" onClick={() => controller.exportCsv()}>
                Export CSV
              </button>
              <button type="button" className="button button--small" data-testid="export-json" onClick={() => controller.exportJson()}>
                Export JSON
              </button>
              <button
                type="button"
                className="button button--small"
                data-testid="export-detections-csv"
                title="One row per detection, with its track id"
                onClick={() => controller.exportDetectionsCsv()}
              >
                Detections CSV
              </button>
              <button
                type="button"
                className="button button--small button--ghost"
                data-testid="reset-stats"
                onClick={() => controller.clearSamples()}
              >
                Reset
              </button>
              <span className="export-row__note">
                {snapshot.samplesKept.toLocaleString('en-US')} samples
                {snapshot.samplesDiscarded > 0 && ` (${snapshot.samplesDiscarded.toLocaleString('en-US')} oldest discarded)`}
              </span>
            </div>
          </Panel>
          {snapshot.links.length > 1 && (
            <Panel
              title="Links"
              id="links-title"
              actions={
                <span className="panel__note">the gateway's frames per link, last {settings.statsWindow.toLocaleString('en-US')} each</span>
              }
            >
              <LinkStats links={snapshot.links} inForce={snapshot.measuredOn.spec} />
            </Panel>
          )}
          <Panel
            title="Events"
            id="events-title"
            className="panel--events"
            actions={<span className="panel__note">lines and zones of this camera, live</span>}
          >
            <SceneEvents store={scene} />
          </Panel>
          <Panel
            title="Detections"
            id="detections-title"
            actions={
              <span className="panel__note">
                {snapshot.latest ? (snapshot.phase === 'streaming' ? `${snapshot.latest.detections.length} now` : 'last result') : ''}
              </span>
            }
          >
            <DetectionsList latest={snapshot.latest} tracked={snapshot.tracking.latest} />
          </Panel>
          <Panel title="Last frame" id="timings-title">
            <StageBreakdown latest={snapshot.latest} encode={snapshot.lastEncode} encoderPath={snapshot.encoderPath} />
          </Panel>
          <Panel
            title="Errors"
            id="errors-title"
            actions={
              snapshot.errors.length > 0 || snapshot.notices.length > 0 ? (
                <button
                  type="button"
                  className="button button--small button--ghost"
                  onClick={() => {
                    controller.clearErrors();
                    controller.dismissNotices();
                  }}
                >
                  Clear
                </button>
              ) : undefined
            }
          >
            {/* The dashboard's own problems (a stuck encoder, unreadable replies) stay here after their toast is gone. */}
            <ErrorLog
              entries={snapshot.errors}
              label="Gateway errors"
              showHeading={snapshot.notices.length > 0}
              emptyText="No errors from the gateway."
              testId="error-log"
            />
            {snapshot.notices.length > 0 && (
              <ErrorLog entries={snapshot.notices} label="Dashboard problems" showHeading testId="notice-log" />
            )}
          </Panel>
        </aside>
      </main>
      <Toasts errors={snapshot.errors} notices={snapshot.notices} />
    </div>
  );
}
