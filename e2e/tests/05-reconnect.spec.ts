/** The gateway goes away mid-stream and comes back on the same port: the dashboard reconnects and resumes. */
import { expect, test } from '../support/fixtures.ts';

const cases = [
  { signal: 'SIGKILL', what: 'crashes (SIGKILL)', screenshot: '04-reconnected.png' },
  { signal: 'SIGTERM', what: 'shuts down gracefully (SIGTERM)', screenshot: '04b-reconnected-after-sigterm.png' },
] as const;

for (const { signal, what, screenshot } of cases) {
  test(`gateway ${what} and restarts on the same port: reconnecting, then open, detections resume`, async ({
    page,
    dashboard,
    gateway,
    shot,
  }) => {
    try {
      await dashboard.openConnected();
      await dashboard.waitForStat('msgpack', 'count', (n) => n >= 5);
      await expect(dashboard.detectionsList.getByTestId('detection').first()).toBeVisible();
      await dashboard.recordConnectionStates();
      expect(await dashboard.socketsCreated()).toBe(1);

      const port = gateway.port;
      await gateway.stop(signal);
      await dashboard.expectState('reconnecting', 15_000);

      // While it is down nothing completes.
      await page.waitForTimeout(500);
      const countWhileDown = await dashboard.statValue('msgpack', 'count');
      await page.waitForTimeout(2500);
      await dashboard.expectState('reconnecting');
      expect(await dashboard.statValue('msgpack', 'count'), 'frames completed while the gateway was down').toBe(countWhileDown);
      expect(await dashboard.socketsCreated(), 'reconnect attempts while down').toBeGreaterThanOrEqual(2);

      await gateway.start();
      expect(gateway.port).toBe(port);
      // Backoff is capped at 15 s (+ jitter), so this is generous but bounded.
      await dashboard.expectState('open', 45_000);
      await dashboard.waitForStat('msgpack', 'count', (n) => n >= countWhileDown + 5, 60_000);
      await expect(dashboard.detectionsList.getByTestId('detection').first()).toBeVisible();

      const states = await dashboard.recordedStates();
      expect(states[0]).toBe('open');
      expect(states).toContain('reconnecting');
      expect(states[states.length - 1]).toBe('open');
      expect(states, 'never gave up (closed) on its own').not.toContain('closed');

      await shot(screenshot);
    } finally {
      // Leave a running gateway for the next test of this worker.
      if (!gateway.running) await gateway.start();
    }
  });
}
