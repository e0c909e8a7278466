/**
 * A real Triton Inference Server as a child process, for the tests and benchmarks of remote inference:
 * deploy/triton/serve.py (nvidia-pytriton's bundled tritonserver, CPU) serving Sightline models under their
 * manifest names on free loopback ports. Its venv is made on first use from deploy/triton/requirements.txt
 * (~150 MB from PyPI the first time; reused after). It is ready once /v2/health/ready and every model's
 * ready endpoint answer 200: Triton reports itself ready before it has loaded any model.
 *
 * A TritonProcess keeps its ports: stopped (SIGTERM, Triton drains), killed (SIGKILL of every process of the
 * engine at once, a crash: connections reset) and started again on the same ones, as recovery tests need.
 * Whatever way this process ends, the engine goes with it (ServerProcess kills serve.py, and Triton is told
 * by the kernel when its parent dies). Linux only, as pytriton's wheels are.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { REPO_ROOT } from '../repo-root.ts';
import { freePort } from './free-port.ts';
import { kserveReadiness } from './kserve-readiness.ts';
import { ensurePythonEnv, type PythonEnv } from './python-env.ts';
import { DEFAULT_START_TIMEOUT_MS, ServerProcess } from './server-process.ts';

export const TRITON_DIR = join(REPO_ROOT, 'deploy', 'triton');
export const TRITON_REQUIREMENTS = join(TRITON_DIR, 'requirements.txt');
const DEFAULT_MODELS_DIR = join(REPO_ROOT, 'models');

/** SIGTERM lets Triton finish what is in flight (serve.py gives it 5 s) and unload; then SIGKILL. */
const STOP_GRACE_MS = 20_000;
/** After the process is gone, how long its listening sockets may take to close (Triton exits after serve.py). */
const PORT_RELEASE_MS = 15_000;

export interface TritonProcessOptions {
  /** Model names (folders of `modelsDir`); default: the manifest marked default. */
  models?: readonly string[];
  modelsDir?: string;
  /** Frames Triton's dynamic batcher merges into one run (serve.py's default: 8). */
  maxBatchSize?: number;
  /** Longest a request waits in Triton's queue for others to batch with, in microseconds (default 0). */
  queueDelayUs?: number;
  /** onnxruntime intra-op threads per run (serve.py's default: the CPU count). */
  threads?: number;
  /** Output of the first start goes here, of the n-th to `<name>.<n><ext>`; absent: kept in memory only. */
  logFile?: string;
  /** How long a start waits for readiness (after the venv exists). */
  startTimeoutMs?: number;
  /** Added to the child's environment. */
  env?: Record<string, string>;
}

/** The manifest marked default in `modelsDir`. */
function defaultModel(modelsDir: string): string {
  for (const entry of readdirSync(modelsDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    try {
      const manifest = JSON.parse(readFileSync(join(modelsDir, entry.name, 'manifest.json'), 'utf8')) as {
        name?: string;
        default?: boolean;
      };
      if (manifest.default && manifest.name) return manifest.name;
    } catch {
      // a folder without a manifest (tools, node_modules)
    }
  }
  throw new Error(`no manifest in ${modelsDir} is marked default: name the models to serve`);
}

/** A process as /proc shows it: its parent, and its start time (so a recycled pid is never mistaken for it). */
interface ProcEntry {
  pid: number;
  ppid: number;
  startTime: string;
}

function procEntry(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ... starttime (field 22): comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

/**
 * `root` and all its descendants. The engine is several: serve.py, tritonserver, the Python-backend stub
 * tritonserver forks per model instance, and that stub's own helper. The stub inherits tritonserver's
 * open HTTP connections, so a crash that spared it would leave clients waiting on sockets nobody serves.
 */
function processTree(root: number): ProcEntry[] {
  const all = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => procEntry(Number(entry)))
    .filter((entry): entry is ProcEntry => entry !== undefined);
  const tree = all.filter((entry) => entry.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((entry) => entry.ppid === tree[i]!.pid));
  return tree;
}

/**
 * What a killed engine leaves behind, found while it still runs: the shared memory its processes map
 * (/dev/shm: Triton's Python backend and pytriton's proxy), and the Python backend's model folder named on
 * the stub's command line.
 */
function leftoversOf(tree: readonly ProcEntry[]): string[] {
  const paths = new Set<string>();
  // The stub runs `/tmp/folderXXXXXX/<version>/model.py` (the backend's mkdtemp template names /tmp itself).
  const tmp = '/tmp';
  for (const { pid } of tree) {
    try {
      for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
        const at = line.indexOf('/dev/shm/');
        if (at >= 0) paths.add(line.slice(at).replace(/ \(deleted\)$/, ''));
      }
      for (const arg of readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')) {
        if (dirname(dirname(dirname(arg))) !== tmp) continue;
        const folder = dirname(dirname(arg));
        if (/^folder[A-Za-z0-9]{6}$/.test(basename(folder))) paths.add(folder);
      }
    } catch {
      // gone meanwhile
    }
  }
  return [...paths];
}

/** SIGKILLs the processes of `tree` that are still the same processes. */
function killTree(tree: readonly ProcEntry[]): void {
  for (const entry of tree) {
    if (procEntry(entry.pid)?.startTime !== entry.startTime) continue;
    try {
      process.kill(entry.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Workspaces of engines still running, removed if this process exits first. */
const liveWorkspaces = new Set<string>();
process.once('exit', () => {
  for (const dir of liveWorkspaces) rmSync(dir, { recursive: true, force: true });
});

export class TritonProcess {
  readonly models: readonly string[];
  /** Times start() brought it up. */
  starts = 0;
  private server: ServerProcess | undefined;
  private workspace: string | undefined;

  private constructor(
    private readonly options: TritonProcessOptions,
    private readonly python: PythonEnv,
    readonly httpPort: number,
    readonly grpcPort: number,
    readonly metricsPort: number,
  ) {
    this.models = options.models ?? [defaultModel(options.modelsDir ?? DEFAULT_MODELS_DIR)];
  }

  /** Ports chosen and the venv made (the first time: a download from PyPI), not started yet. */
  static async create(options: TritonProcessOptions = {}): Promise<TritonProcess> {
    const python = await ensurePythonEnv({ name: 'triton', requirements: TRITON_REQUIREMENTS });
    return new TritonProcess(options, python, await freePort(), await freePort(), await freePort());
  }

  static async start(options: TritonProcessOptions = {}): Promise<TritonProcess> {
    const triton = await TritonProcess.create(options);
    await triton.start();
    return triton;
  }

  /** The KServe v2 HTTP endpoint. */
  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  get metricsUrl(): string {
    return `http://127.0.0.1:${this.metricsPort}/metrics`;
  }

  get running(): boolean {
    return this.server?.running ?? false;
  }

  get pid(): number | undefined {
    return this.server?.pid;
  }

  /** The last output of the current (or last) process. */
  output(): string {
    return this.server?.output() ?? '';
  }

  /** Spawns serve.py and waits until Triton and every model are ready. */
  async start(timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS): Promise<void> {
    if (this.running) throw new Error(`Triton on port ${this.httpPort} is already running`);
    const { modelsDir, maxBatchSize, queueDelayUs, threads, env } = this.options;
    const workspace = mkdtempSync(join(tmpdir(), 'sightline-triton-'));
    liveWorkspaces.add(workspace);
    this.workspace = workspace;
    const args = [
      join(TRITON_DIR, 'serve.py'),
      ...this.models.flatMap((model) => ['--model', model]),
      ...(modelsDir ? ['--models-dir', modelsDir] : []),
      ...['--http-port', String(this.httpPort), '--grpc-port', String(this.grpcPort), '--metrics-port', String(this.metricsPort)],
      ...(maxBatchSize === undefined ? [] : ['--max-batch-size', String(maxBatchSize)]),
      ...(queueDelayUs === undefined ? [] : ['--queue-delay-us', String(queueDelayUs)]),
      ...(threads === undefined ? [] : ['--threads', String(threads)]),
      // pytriton wants a folder that does not exist yet; its parent is ours to remove after a kill.
      ...['--workspace', join(workspace, 'pytriton')],
    ];
    try {
      this.server = await ServerProcess.start({
        name: 'Triton',
        command: this.python.python,
        args,
        cwd: REPO_ROOT,
        port: this.httpPort,
        env: { ...this.python.env, PYTHONUNBUFFERED: '1', ...env },
        ...(this.options.logFile ? { logFile: this.logFile(this.options.logFile) } : {}),
        startTimeoutMs: timeoutMs,
        ready: () => kserveReadiness(this.url, this.models),
      });
    } catch (error) {
      // The start's own error is the one to report; a port still held is secondary.
      await this.released().catch(() => undefined);
      throw error;
    }
    this.starts++;
  }

  /**
   * SIGTERM: Triton finishes what is in flight, unloads and exits; whatever of the engine is still there after
   * `graceMs` is killed. Resolves once its ports are free.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    const tree = this.tree();
    const leftovers = leftoversOf(tree);
    await this.server?.stop('SIGTERM', graceMs);
    killTree(tree);
    await this.released(leftovers);
  }

  /**
   * A crash: every process of the engine SIGKILLed at once, so requests in flight see their connections
   * reset. Resolves once its ports are free and what it left (shared memory, temporary folders) is removed.
   */
  async kill(): Promise<void> {
    const tree = this.tree();
    const leftovers = leftoversOf(tree);
    killTree(tree);
    await this.server?.stop('SIGKILL');
    await this.released(leftovers);
  }

  /** Same ports, fresh process. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  private tree(): ProcEntry[] {
    const pid = this.server?.running ? this.server.pid : undefined;
    return pid === undefined ? [] : processTree(pid);
  }

  /** After the process is gone: its ports closed (Triton may outlive serve.py briefly), its files removed. */
  private async released(leftovers: readonly string[] = []): Promise<void> {
    const deadline = performance.now() + PORT_RELEASE_MS;
    while (await portAcceptsConnections(this.httpPort)) {
      if (performance.now() > deadline)
        throw new Error(`Triton's port ${this.httpPort} still accepts connections ${PORT_RELEASE_MS} ms after it stopped`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const path of leftovers) rmSync(path, { recursive: true, force: true });
    if (this.workspace) {
      rmSync(this.workspace, { recursive: true, force: true });
      liveWorkspaces.delete(this.workspace);
      this.workspace = undefined;
    }
  }

  private logFile(file: string): string {
    const n = this.starts + 1;
    if (n === 1) return file;
    const ext = extname(file);
    return `${file.slice(0, file.length - ext.length)}.${n}${ext}`;
  }
}

/** Triton serving `options.models` on free loopback ports, started and ready. */
export function startTritonProcess(options: TritonProcessOptions = {}): Promise<TritonProcess> {
  return TritonProcess.start(options);
}
