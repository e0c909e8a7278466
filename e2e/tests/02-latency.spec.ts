/** The latency chart and the per-codec statistics fill in from real answers. */
import { expect, test } from '../support/fixtures.ts';

test('latency chart, ping and msgpack stats fill in while the json column stays empty', async ({ dashboard, shot }) => {
  await dashboard.open();
  await dashboard.selectCodec('msgpack'); // the default, made explicit
  await dashboard.expectState('open');
  await dashboard.waitForStat('msgpack', 'count', (count) => count > 10, 90_000);

  const stats = await dashboard.stats('msgpack');
  expect(stats.p50, 'p50').toBeGreaterThan(0);
  expect(stats.p95, 'p95 >= p50').toBeGreaterThanOrEqual(stats.p50);
  expect(stats.p99, 'p99 >= p95').toBeGreaterThanOrEqual(stats.p95);
  expect(stats.mean, 'mean').toBeGreaterThan(0);
  expect(stats.stddev, 'stddev').toBeGreaterThanOrEqual(0);
  expect(stats.fps, 'fps').toBeGreaterThan(0);
  // One frame in flight (default) from a 15 fps camera: well above 15 answered frames per second is impossible.
  expect(stats.fps, 'fps <= camera rate').toBeLessThanOrEqual(20);
  expect(stats.errors, 'errors').toBe(0);
  expect(stats['bytes-up'], 'bytes-up').toBeGreaterThan(1000); // a JPEG
  expect(stats['bytes-down'], 'bytes-down').toBeGreaterThan(50);

  const json = await dashboard.stats('json');
  expect(json.count, 'json count while streaming msgpack').toBe(0);

  await expect
    .poll(async () => Number((await dashboard.byTestId('ping-value').getAttribute('data-value')) || Number.NaN))
    .toBeGreaterThan(0);

  // The chart: a recharts SVG with line paths that carry many points.
  const chart = dashboard.byTestId('latency-chart');
  await expect(chart.locator('svg.recharts-surface')).toHaveCount(1);
  await expect
    .poll(
      async () => {
        const paths = await chart.locator('path.recharts-line-curve').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('d') ?? ''));
        return Math.max(0, ...paths.map((d) => (d.match(/[ML]/g) ?? []).length));
      },
      { message: 'points in the longest chart line' },
    )
    .toBeGreaterThanOrEqual(10);

  await shot('02-latency-chart.png');
});
