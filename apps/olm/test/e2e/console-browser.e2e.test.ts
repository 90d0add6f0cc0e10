import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from './catalogs.js';
import { browserUnavailableReason, chromiumPath, startConsole, viewOnlyKubeconfig, type RunningConsole } from './console-browser.js';
import { getJson, operatorGroup, subscription, type Json } from './kubectl-objects.js';
import { e2eUnavailableReason, eventually, startOlmUp, type OlmUp } from './olm-up.js';

const unavailable = e2eUnavailableReason() ?? browserUnavailableReason();
if (unavailable) console.warn(`console browser tests skipped: ${unavailable}`);

const exampleCatalog = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));
/** With CONSOLE_SCREENSHOTS=DIR the test saves the main pages there (docs/images/console-*.png). */
const screenshots = process.env.CONSOLE_SCREENSHOTS;

async function screenshot(page: Page, name: string): Promise<void> {
  if (!screenshots) return;
  mkdirSync(screenshots, { recursive: true });
  // The viewport only (1200x900): whole pages of text make PNGs of several hundred KB.
  await page.screenshot({ path: join(screenshots, `console-${name}.png`) });
}

/** Switches the page's namespace as a user does: type it, press Enter. */
async function useNamespace(page: Page, namespace: string): Promise<void> {
  await page.getByLabel('Working namespace').fill(namespace);
  await page.getByLabel('Working namespace').press('Enter');
}

describe.skipIf(unavailable !== undefined)('olm console in a real Chromium, against olm up', () => {
  let up: OlmUp;
  let admin: RunningConsole;
  let viewer: RunningConsole;
  let browser: Browser;
  let page: Page;
  const directory = temporaryDirectory('olm-console-e2e-');

  beforeAll(async () => {
    up = await startOlmUp();
    [admin, viewer] = await Promise.all([startConsole(up.kubeconfig), viewOnlyKubeconfig(up, directory).then(startConsole)]);
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await eventually('the packageserver to list the example packages', async () => {
      const manifests = ((await getJson(up, ['packagemanifests', '-n', 'operators']))?.items ?? []) as Json[];
      return manifests.length >= 3 ? manifests : undefined;
    });
    await page.goto(admin.url);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await admin?.stop();
    await viewer?.stop();
    expect(await up?.stop()).toBe(0);
    rmSync(directory, { recursive: true, force: true });
  }, 120_000);

  it('lists the example packages, and search narrows them', async () => {
    // The token left the address bar: it lives in the cookie now.
    expect(page.url()).toBe(`${admin.origin}/`);
    const table = page.getByRole('table', { name: 'Packages visible from namespace operators' });
    for (const name of ['acme-backup', 'acme-database', 'acme-monitoring']) await expect.poll(() => table.getByRole('link', { name, exact: true }).count(), { timeout: 10_000 }).toBe(1);
    await screenshot(page, 'packages');
    await page.getByRole('searchbox', { name: 'Search packages' }).fill('backup');
    await expect.poll(() => table.getByRole('link').allTextContents()).toEqual(['acme-backup']);
    await page.getByRole('searchbox', { name: 'Search packages' }).fill('');
  }, 120_000);

  it("opens acme-database's update graph: the same picture as olm catalog graph --format svg", async () => {
    await page.getByRole('link', { name: 'acme-database', exact: true }).click();
    const picture = page.locator('#graph-picture svg');
    await picture.waitFor();
    const cli = await up.olm(['catalog', 'graph', exampleCatalog, '--package', 'acme-database', '--format', 'svg']);
    expect(cli.code).toBe(0);
    // The page drew what the server sent (the browser re-serializes the DOM, so compare the server's text).
    const served = await page.evaluate(async () => ((await (await fetch('/api/packages/graph?namespace=operators&package=acme-database&catalog=acme-examples&catalogNamespace=olm')).json()) as { svg: string }).svg);
    expect(served).toBe(cli.stdout);
    expect(await picture.locator('g[role="listitem"]').count()).toBe(6);
    await expect.poll(() => page.getByRole('img', { name: /Update graph of acme-database/ }).count()).toBe(1);
    await screenshot(page, 'graph');
  }, 120_000);

  it('installs acme-backup: the preview shows acme-database coming along, confirm installs both', async () => {
    await page.goto(`${admin.origin}/#/packages/olm/acme-examples/acme-backup`);
    // The previous page had a Preview button too: wait for this package's page.
    await page.getByRole('heading', { name: 'acme-backup', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Preview install' }).click();
    const preview = page.getByRole('heading', { name: /^Preview: InstallPlan install-\w+ installs 2 operators$/ });
    await preview.waitFor({ timeout: 60_000 });
    const operators = await page.locator('.plan-operator').allTextContents();
    expect(operators.sort()).toEqual(['acme-backup.v0.2.0', 'acme-database.v1.2.0']);
    await page.getByRole('button', { name: 'Confirm install' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'install-preview');
    await page.getByRole('button', { name: 'Confirm install' }).click();
    await page.waitForURL(/#\/operators$/);
    await eventually('acme-backup and acme-database to succeed', async () => {
      const csvs = ((await getJson(up, ['csv', '-n', 'operators']))?.items ?? []) as Json[];
      const phases = csvs.map((csv) => `${csv.metadata.name}=${csv.status?.phase}`).sort();
      return phases.join() === 'acme-backup.v0.2.0=Succeeded,acme-database.v1.2.0=Succeeded' ? phases : undefined;
    });
    // The Subscription keeps the approval asked for (Automatic) once confirmed.
    expect((await getJson(up, ['subscription', 'acme-backup', '-n', 'operators']))?.spec.installPlanApproval).toBe('Automatic');
    // Live updates re-render the page as the CSVs move on.
    await expect.poll(() => page.locator('.phase-succeeded').count(), { timeout: 30_000 }).toBe(2);
    await screenshot(page, 'operators');
  }, 120_000);

  it('labels every control and moves through the page by keyboard (skip link first, focus visible)', async () => {
    await page.goto(`${admin.origin}/#/packages/olm/acme-examples/acme-database`);
    await page.getByRole('heading', { name: 'acme-database', level: 1 }).waitFor();
    // page.evaluate runs in the browser; this file is type-checked without the DOM library.
    const unlabelled = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('button, input, select, a[href]')]
        .filter((element: any) => {
          const labelled = element.labels?.length || element.getAttribute('aria-label') || element.getAttribute('aria-labelledby');
          return !labelled && !(element.textContent ?? '').trim();
        })
        .map((element: any) => String(element.outerHTML)),
    );
    expect(unlabelled).toEqual([]);
    for (const landmark of ['banner', 'navigation', 'main']) expect(await page.getByRole(landmark as 'main').count(), landmark).toBe(1);
    // A fresh load leaves focus at the start of the document: the skip link comes first.
    await page.reload();
    await page.getByRole('heading', { name: 'acme-database', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const active = (globalThis as any).document.activeElement;
      return { text: active?.textContent as string, outline: (globalThis as any).getComputedStyle(active).outlineStyle as string };
    });
    expect(focused).toEqual({ text: 'Packages', outline: 'solid' });
  });

  it('approves a Manual plan from the Plans page', async () => {
    await up.kubectlOk(['apply', '-f', '-'], `${operatorGroup('manual', ['manual'])}---${subscription('manual', 'acme-database', { installPlanApproval: 'Manual' })}`);
    await useNamespace(page, 'manual');
    await page.goto(`${admin.origin}/#/plans`);
    const approve = page.getByRole('button', { name: /^Approve install-\w+$/ });
    await approve.waitFor({ timeout: 60_000 });
    await screenshot(page, 'plans');
    // By keyboard, as a user without a mouse does.
    await approve.focus();
    await page.keyboard.press('Enter');
    await eventually('the plan approved and acme-database installed in manual', async () => {
      const csv = await getJson(up, ['csv', 'acme-database.v1.2.0', '-n', 'manual']);
      return csv?.status?.phase === 'Succeeded' ? csv : undefined;
    });
  }, 120_000);

  it("shows a failing Subscription's explanation, the same as olm explain", async () => {
    await up.kubectlOk(['apply', '-f', '-'], subscription('operators', 'acme-monitoring', { channel: 'no-such-channel' }));
    const cli = await eventually('olm explain to report the failed resolution', async () => {
      const result = await up.olm(['explain', 'acme-monitoring', '-n', 'operators']);
      return result.stdout.includes('resolution fails') ? result.stdout : undefined;
    });
    await useNamespace(page, 'operators');
    await page.goto(`${admin.origin}/#/why/acme-monitoring`);
    const output = page.getByLabel('olm explain output');
    await output.waitFor();
    expect(await output.textContent()).toBe(cli);
    await expect.poll(() => page.locator('.findings .why').first().textContent()).toContain('resolution fails');
    await screenshot(page, 'why');
  }, 120_000);

  it('a view-only user sees the waiting plan without Approve, and a POST of approve gets the cluster\'s 403', async () => {
    await up.kubectlOk(['apply', '-f', '-'], `${operatorGroup('waiting', ['waiting'])}---${subscription('waiting', 'acme-database', { installPlanApproval: 'Manual' })}`);
    const plan = await eventually('a plan waiting for approval in namespace waiting', async () => {
      const plans = ((await getJson(up, ['installplans', '-n', 'waiting']))?.items ?? []) as Json[];
      return plans.find((each) => each.status?.phase === 'RequiresApproval')?.metadata.name as string | undefined;
    });
    const viewerPage = await browser.newPage();
    await viewerPage.goto(viewer.url);
    await useNamespace(viewerPage, 'waiting');
    await viewerPage.goto(`${viewer.origin}/#/plans`);
    await viewerPage.getByRole('heading', { name: `InstallPlan ${plan}` }).waitFor();
    expect(await viewerPage.getByText('you may not approve it').count()).toBe(1);
    expect(await viewerPage.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    const reply = await viewerPage.evaluate(async (name) => {
      const response = await fetch('/api/plans/approve', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ namespace: 'waiting', name }) });
      return { status: response.status, body: (await response.json()) as { reason: string; message: string } };
    }, plan);
    expect(reply.status).toBe(403);
    expect(reply.body.reason).toBe('Forbidden');
    expect(reply.body.message).toContain('User "system:serviceaccount:operators:viewer" cannot patch resource "installplans"');
    expect((await getJson(up, ['installplan', plan, '-n', 'waiting']))?.spec.approved).toBe(false);
    await viewerPage.close();
  }, 120_000);
});
