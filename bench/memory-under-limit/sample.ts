/** One tick of sampler.ts: the container's cgroup and the gateway process, in bytes (null: could not be read). */
export interface Sample {
  /** Seconds since the sampler started. */
  t: number;
  /** The phase memory-under-limit.sh was in. */
  phase: string;
  /** The cgroup's charge: what the kernel holds against `--memory` (anon and page cache). */
  cgroupBytes: number | null;
  /** The kernel's own high-water mark of that charge since the container started. */
  cgroupPeakBytes: number | null;
  cgroupAnonBytes: number | null;
  cgroupFileBytes: number | null;
  /** OOM kills the cgroup counted. */
  oomKills: number | null;
  /** The cgroup's limit (memory.max, memory.limit_in_bytes). */
  limitBytes: number | null;
  rssBytes: number | null;
  /** The process's own RSS high-water mark (VmHWM). */
  hwmBytes: number | null;
}
