/**
 * Test fixtures: one real gateway per worker (restartable on its port), baseURL pointing at it, a page
 * instrumented to count WebSocket constructions, and the dashboard page object.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { Dashboard } from './dashboard.ts';
import { GatewayProcess } from './gateway.ts';
import { SCREENSHOTS_DIR } from './paths.ts';

/** Runs in the page before any of its scripts: counts every WebSocket the dashboard creates. */
function instrumentWebSocket(): void {
  const Original = window.WebSocket;
  const log: { url: string; at: number }[] = [];
  class CountingWebSocket extends Original {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      log.push({ url: String(url), at: performance.now() });
    }
  }
  Object.defineProperty(window, 'WebSocket', { value: CountingWebSocket, writable: true, configurable: true });
  Object.defineProperty(window, '__e2eSockets', { value: log });
}

export interface PageProblems {
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** console.error messages. */
  consoleErrors: string[];
}

interface TestFixtures {
  dashboard: Dashboard;
  problems: PageProblems;
  /** Saves e2e/artifacts/screenshots/<name> and attaches it to the report. */
  shot: (name: string, page?: Page) => Promise<string>;
}

interface WorkerFixtures {
  gateway: GatewayProcess;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  gateway: [
    async ({}, use, workerInfo) => {
      const gateway = await GatewayProcess.start({ name: `w${workerInfo.workerIndex}` });
      await use(gateway);
      await gateway.stop();
    },
    { scope: 'worker', timeout: 90_000 },
  ],

  baseURL: async ({ gateway }, use) => {
    await use(gateway.url);
  },

  context: async ({ context }, use) => {
    await context.addInitScript(instrumentWebSocket);
    await use(context);
  },

  problems: [
    async ({ page }, use, testInfo) => {
      const problems: PageProblems = { pageErrors: [], consoleErrors: [] };
      page.on('pageerror', (error) => problems.pageErrors.push(`${error.name}: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.consoleErrors.push(message.text());
      });
      await use(problems);
      if (problems.pageErrors.length + problems.consoleErrors.length > 0) {
        await testInfo.attach('page-problems.json', { body: JSON.stringify(problems, null, 2), contentType: 'application/json' });
      }
      // The gateway's Content-Security-Policy must hold for everything the dashboard does.
      expect(
        problems.consoleErrors.filter((text) => /Content Security Policy/i.test(text)),
        'CSP violations',
      ).toEqual([]);
    },
    { auto: true },
  ],

  dashboard: async ({ page }, use) => {
    await use(new Dashboard(page));
  },

  shot: async ({ page }, use, testInfo) => {
    mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    await use(async (name, target = page) => {
      const path = join(SCREENSHOTS_DIR, name);
      await target.screenshot({ path, fullPage: false });
      await testInfo.attach(name, { path, contentType: 'image/png' });
      return path;
    });
  },
});

export { expect };
