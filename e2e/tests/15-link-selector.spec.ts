/**
 * The Link selector (web/src/components/LinkSelector.tsx): a preset puts the running stream behind an emulated
 * link without restarting the gateway (its socket reconnects with `?link=`, once), and every figure says so;
 * a custom spec is checked as it is typed, and a bad one shows the parser's one-line message and changes
 * nothing (no reconnect, the stream goes on behind the link it had); figures from different links are never
 * pooled (the stats start afresh on the new link, the Links panel shows each apart); the exports say which link
 * each frame crossed. And a gateway that refuses the link on the upgrade (here: it takes this page for
 * another machine's, through a trusted proxy's X-Forwarded-For, and emulates links only for its own machine
 * or with the token): the stream goes back to the link it ran behind, and the page says it was refused.
 */
import { readFile } from 'node:fs/promises';
import { expectFramesCounted, onAnotherDevice } from '../support/another-device.ts';
import { expect, test } from '../support/fixtures.ts';

const CUSTOM = 'bw=2mbit/10mbit,delay=30ms,jitter=5ms';

test('a preset puts the running stream behind it; a bad custom spec is a message and changes nothing', async ({
  page,
  dashboard,
  problems,
  shot,
}) => {
  test.setTimeout(180_000);
  await dashboard.openStreaming('msgpack', 3);
  await dashboard.expectMeasuredOn('none', 'on no emulated link');
  await expect(dashboard.byTestId('link-badge')).toHaveCount(0);
  await expect(dashboard.byTestId('link-select')).toHaveValue('none');

  // A preset: one reconnect, asking for it; hello names it; the stats start afresh on it.
  await dashboard.byTestId('link-select').selectOption('lte');
  await expect(dashboard.byTestId('link-badge')).toContainText('Emulated link · LTE · 40 ms RTT');
  await dashboard.expectMeasuredOn('lte', /LTE · 40 ms RTT ±4, ↓29\.5 ↑7\.6 Mbit\/s, emulated/);
  expect(await dashboard.socketParams('link')).toEqual([null, 'lte']);
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= 3);
  // Only LTE's frames in the table: none is faster than the link's 40 ms round trip.
  expect(await dashboard.statValue('msgpack', 'p50')).toBeGreaterThanOrEqual(40);
  await expect.poll(async () => Number(await dashboard.byTestId('ping-value').getAttribute('data-value'))).toBeGreaterThanOrEqual(40);
  // Each link apart in the Links panel: None's frames and LTE's.
  await expect(dashboard.byTestId('link-stats').getByTestId('link-none')).toBeVisible();
  await expect(dashboard.byTestId('link-stats').getByTestId('link-lte')).toContainText('LTE (emulated)');
  // The choice is in the address (the address bar follows a choice made on the page).
  await expect.poll(() => new URL(page.url()).searchParams.get('link')).toBe('lte');
  await shot('15-link-lte.png');

  // A bad custom spec: the parser's message as it is typed, Apply refused, the stream goes on behind LTE.
  await dashboard.byTestId('link-select').selectOption('custom');
  const field = dashboard.byTestId('link-custom');
  const message = dashboard.byTestId('link-message');
  await expect(field).toHaveValue('lte');
  await field.fill('bw=fast,delay=30ms');
  await expect(message).toHaveAttribute('data-valid', 'false');
  await expect(message).toHaveText(/^Bad value 'fast' for bw: expected a rate such as 2mbit/);
  await expect(dashboard.byTestId('link-apply')).toBeDisabled();
  await field.press('Enter');
  await field.fill('delay=30ms,loss=1%');
  await expect(message).toHaveText(
    /^Not on the dashboard's WebSocket: loss \(up and down\): a byte stream cannot lose a TCP segment; loss needs the packet path/,
  );
  await field.press('Enter');
  const before = await dashboard.statValue('msgpack', 'count');
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= before + 2);
  expect(await dashboard.socketParams('link'), 'no reconnect for a spec that does not parse').toEqual([null, 'lte']);
  await dashboard.expectMeasuredOn('lte', 'LTE · 40 ms RTT');
  await shot('15-link-bad-spec.png');

  // A good one: its label as it is typed, then applied.
  await field.fill(CUSTOM);
  await expect(message).toHaveAttribute('data-valid', 'true');
  await expect(message).toHaveText('Runs behind Custom · 60 ms RTT ±5, ↓10 ↑2 Mbit/s, emulated.');
  await dashboard.byTestId('link-apply').click();
  await dashboard.expectMeasuredOn(CUSTOM, 'Custom · 60 ms RTT ±5, ↓10 ↑2 Mbit/s, emulated');
  expect(await dashboard.socketParams('link')).toEqual([null, 'lte', CUSTOM]);
  await dashboard.waitForStat('msgpack', 'count', (n) => n >= 2);
  await expect.poll(() => new URL(page.url()).searchParams.get('link')).toBe(CUSTOM);

  // The exports: every frame with the link it crossed, and what each link was.
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-csv').click()]);
  const csv = await readFile(await csvDownload.path(), 'utf8');
  const [header, ...lines] = csv.split(/\r?\n/).filter((line) => line !== '');
  expect(header!.split(',').at(-1)).toBe('link');
  const links = new Set(lines.map((line) => (line.endsWith('"') ? line.slice(line.lastIndexOf(',"') + 2, -1) : line.split(',').at(-1))));
  expect(links).toEqual(new Set(['none', 'lte', CUSTOM]));
  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), dashboard.byTestId('export-json').click()]);
  const exported = JSON.parse(await readFile(await jsonDownload.path(), 'utf8')) as {
    links: { spec: string; label: string; emulated: boolean }[];
    samples: { link: string | null }[];
  };
  expect(exported.links.map((link) => [link.spec, link.emulated])).toEqual([
    ['none', false],
    ['lte', true],
    [CUSTOM, true],
  ]);
  expect(exported.links[1]!.label).toMatch(/^LTE · 40 ms RTT/);
  expect(problems.pageErrors).toEqual([]);
});

test('a link the gateway refuses on the upgrade: the stream stays on the link it had, and the page says so', async ({ browser }) => {
  test.setTimeout(120_000);
  await onAnotherDevice(browser, 'link-refused', async (page, gateway) => {
    await page.goto(`${gateway.url}/?link=lte`);
    const refusal = page.getByTestId('link-refusal');
    await expect(refusal).toContainText('The gateway refused the link LTE');
    await expect(refusal).toContainText('The stream stays on None.');
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'open');
    await expect(page.getByTestId('link-select')).toHaveValue('none');
    await expect(page.getByTestId('stats-link')).toHaveAttribute('data-spec', 'none');
    await expect(page.getByTestId('link-badge')).toHaveCount(0);
    // Frames go on, behind no link.
    await expectFramesCounted(page, 'msgpack', 2, 60_000);
  });
});
