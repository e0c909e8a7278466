/**
 * Starts the plans' servers as child processes on free loopback ports, one after the other (they would
 * otherwise compete for the cores while loading models), and stops them all. A remote gateway's Triton is
 * started first (startTritonProcess: a real Triton, its venv in .venvs/triton) and stopped after it. A
 * gateway (or its Triton) that cannot start stops the ones already up, and the run fails: the comparison is
 * about them. A Python peer that cannot start (no python3, PyPI out of reach) is left out and said so, as
 * the matrix leaves it out.
 */
import {
  startGatewayProcess,
  startTritonProcess,
  type GatewayProcess,
  type ServerProcess,
  type TritonProcess,
} from '@sightline/harness/process';
import { setupPythonPeers, startPythonPeer } from '../baselines/fastapi-process.ts';
import type { ServerPlan } from './plans.ts';

export interface RunningServer {
  plan: ServerPlan;
  url: string;
  /** Remote rows: the Prometheus endpoint of their Triton. */
  engineMetricsUrl?: string;
  /** Remote rows: the model their Triton serves. */
  engineModel?: string;
  stop(): Promise<void>;
}

async function startOne(plan: ServerPlan, log: (line: string) => void): Promise<RunningServer> {
  if (plan.kind === 'peer') {
    log(`setting up the Python peers' venv (a no-op when current)...`);
    await setupPythonPeers();
    log(`starting ${plan.name} (${plan.threads} thread(s))...`);
    const peer: ServerProcess = await startPythonPeer(plan.peer, plan.threads);
    return { plan, url: peer.url, stop: () => peer.stop() };
  }
  let triton: TritonProcess | undefined;
  const env = { ...plan.env };
  if (plan.triton) {
    const t = plan.triton;
    log(`starting Triton for "${plan.name}" (max batch ${t.maxBatchSize}, queue delay ${t.queueDelayUs} µs, ${t.threads} thread(s))...`);
    triton = await startTritonProcess({ maxBatchSize: t.maxBatchSize, queueDelayUs: t.queueDelayUs, threads: t.threads });
    env.SIGHTLINE_INFERENCE_URL = triton.url;
  }
  log(
    `starting gateway "${plan.name}" from ${plan.dir} (${Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')})...`,
  );
  let gateway: GatewayProcess;
  try {
    gateway = await startGatewayProcess({ dir: plan.dir, env });
  } catch (error) {
    await triton?.stop();
    throw error;
  }
  return {
    plan,
    url: gateway.url,
    ...(triton ? { engineMetricsUrl: triton.metricsUrl, engineModel: triton.models[0] } : {}),
    stop: async () => {
      await gateway.stop();
      await triton?.stop();
    },
  };
}

/**
 * Starts each plan in turn (they would compete for the cores while loading models), in the plans' order. A plan that
 * is `optional` (a peer) and cannot start is left out, with the reason; any other's failure stops the ones already up
 * and is thrown: the comparison is about it.
 */
export async function startInTurn<P extends { name: string }, S extends { stop(): Promise<unknown> }>(
  plans: readonly P[],
  start: (plan: P) => Promise<S>,
  optional: (plan: P) => boolean,
  log: (line: string) => void,
): Promise<{ running: S[]; notStarted: Array<{ plan: P; reason: string }> }> {
  const started = { running: [] as S[], notStarted: [] as Array<{ plan: P; reason: string }> };
  try {
    for (const plan of plans) {
      try {
        started.running.push(await start(plan));
      } catch (error) {
        if (!optional(plan)) throw error;
        const reason = error instanceof Error ? error.message.slice(0, 500) : String(error);
        log(`${plan.name} did not start, measured without it: ${reason}`);
        started.notStarted.push({ plan, reason });
      }
    }
  } catch (error) {
    await Promise.allSettled(started.running.map((s) => s.stop()));
    throw error;
  }
  return started;
}

/** The plans' servers, started and healthy, in the plans' order (see startInTurn). */
export function startServers(plans: readonly ServerPlan[], log: (line: string) => void) {
  return startInTurn(
    plans,
    (plan) => startOne(plan, log),
    (plan) => plan.kind === 'peer',
    log,
  );
}

export async function stopServers(servers: readonly RunningServer[]): Promise<void> {
  await Promise.allSettled(servers.map((s) => s.stop()));
}
