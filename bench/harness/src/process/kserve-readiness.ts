/**
 * Whether a KServe v2 server (Triton) is ready to serve: its GET /v2/health/ready, then each model's
 * GET /v2/models/{name}/ready, asked over plain HTTP so that starting an engine needs nothing of the
 * gateway. 200 means ready; any other answer (a model still loading, an unknown one) means not yet.
 */

/** True once the server and every model answer 200; otherwise what it is still waiting for. */
export async function kserveReadiness(url: string, models: readonly string[], timeoutMs = 2000): Promise<true | string> {
  const base = url.replace(/\/+$/, '');
  const endpoints = ['/v2/health/ready', ...models.map((model) => `/v2/models/${encodeURIComponent(model)}/ready`)];
  for (const path of endpoints) {
    const status = await statusOf(`${base}${path}`, timeoutMs);
    if (status === 200) continue;
    return typeof status === 'number' ? `${base}${path} answered ${status}, not 200 yet` : `${base}${path}: ${status}`;
  }
  return true;
}

/** The HTTP status of a GET, or why there was none (refused, timed out). */
async function statusOf(url: string, timeoutMs: number): Promise<number | string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    // Read to the end, so the connection goes back to the pool instead of waiting to be collected.
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return `no answer (${cause instanceof Error ? cause.message : String(cause)})`;
  }
}
