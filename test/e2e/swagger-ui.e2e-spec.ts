import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { Browser, ElementHandle, Page } from 'puppeteer-core';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

// The project compiles without the DOM library: code run in the page reads its objects as `any`.

// A real browser on a loaded 2-core machine: Swagger UI renders a 100-operation document slowly.
jest.setTimeout(240_000);

/** Debian's chromium package (.ci/run installs it). */
const CHROMIUM = '/usr/bin/chromium';
/** Where the walk's screenshots go: SCREENSHOTS_DIR, else a fresh temporary directory (printed). */
const SCREENSHOTS = process.env.SCREENSHOTS_DIR ?? mkdtempSync(join(tmpdir(), 'swagger-ui-'));

/**
 * /docs as a person uses it: Authorize with the sandbox key, then Try it out and Execute as
 * pre-filled, twice each; every answer is a 2xx, binary answers are shown as what they are.
 */
describe('Swagger UI at /docs, driven in headless Chromium', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    await t.app.listen(0, '127.0.0.1');
    base = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage();
    page.on('pageerror', (error) => console.log(`swagger-ui walk: page error: ${String(error)}`));
    await page.setViewport({ width: 1280, height: 1000 });
    mkdirSync(SCREENSHOTS, { recursive: true });
    console.log(`swagger-ui walk: screenshots in ${SCREENSHOTS}`);
    await openDocs();
    await authorize(tenant.sandboxAuth.replace(/^Bearer /, ''));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function openDocs(): Promise<void> {
    await page.goto(`${base}/docs`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock-tag-section');
  }

  async function authorize(key: string): Promise<void> {
    await page.click('.auth-wrapper .authorize');
    await page.waitForSelector('.modal-ux input[type=text], .modal-ux input[type=password]');
    await page.type('.modal-ux input', key);
    await page.click('.modal-ux .auth-btn-wrapper .authorize');
    await page.click('.modal-ux .btn-done, .modal-ux .close-modal');
  }

  /** The operation's block, opened, with Try it out on. */
  async function operation(method: string, path: string): Promise<ElementHandle> {
    const block = await page.waitForFunction(
      (method, path) =>
        [...(globalThis as any).document.querySelectorAll(`.opblock-${method}`)].find(
          (candidate: any) => candidate.querySelector('.opblock-summary-path')?.getAttribute('data-path') === path,
        ),
      {},
      method,
      path,
    );
    const element = block as unknown as ElementHandle;
    if (!(await element.evaluate((node) => node.classList.contains('is-open')))) {
      await element.$eval('.opblock-summary-control', (node) => (node as any).click());
    }
    const tryOut = await element.waitForSelector('.try-out__btn');
    // On, the button reads "Cancel" (class cancel).
    if (!(await tryOut!.evaluate((node) => node.classList.contains('cancel'))))
      await tryOut!.evaluate((node) => (node as any).click());
    await element.waitForSelector('.execute');
    await element.evaluate((node) => node.scrollIntoView());
    return element;
  }

  async function fill(block: ElementHandle, parameter: string, value: string): Promise<void> {
    const input = await block.waitForSelector(
      `tr[data-param-name="${parameter}"] input, tr[data-param-name="${parameter}"] textarea`,
    );
    // Typed over what the field holds, as a person would; Tab hands the (debounced) value to Swagger UI.
    await input!.focus();
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await input!.type(value);
    await page.keyboard.press('Tab');
  }

  interface Executed {
    status: number;
    url: string;
    body: string;
  }

  /** Execute as the page stands; the answer Swagger UI shows (and a screenshot of it, when named). */
  async function execute(block: ElementHandle, method: string, path: string, screenshot?: string): Promise<Executed> {
    const url = new RegExp(`^${base}${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`);
    const answered = page.waitForResponse(
      (response) => response.request().method() === method.toUpperCase() && url.test(response.url()),
      {
        timeout: 60_000,
      },
    );
    await block.$eval('.execute', (node) => (node as any).click());
    const status = await answered.then(
      // A 304 on the wire is the browser revalidating its cached copy (the thumbnail's ETag): fetch hands the page that 200.
      (response) => (response.status() === 304 ? 200 : response.status()),
      async (error: unknown) => {
        const parameters = await block.$('.opblock-section');
        await parameters?.screenshot({ path: join(SCREENSHOTS, `unanswered-${method}-${path.replace(/\W+/g, '-')}.png`) });
        throw error;
      },
    );
    await page.waitForFunction(
      (node: any, status: number) =>
        node.querySelector('.live-responses-table .response .response-col_status')?.textContent?.trim() === String(status),
      {},
      block,
      status,
    );
    const executed = await block.evaluate((node) => ({
      status: Number(node.querySelector('.live-responses-table .response .response-col_status')?.textContent?.trim()),
      url: node.querySelector('.request-url pre')?.textContent ?? '',
      body: node.querySelector('.live-responses-table .response-col_description .microlight')?.textContent ?? '',
    }));
    if (screenshot) {
      const answer = await block.$('.responses-inner > div');
      await answer!.screenshot({ path: join(SCREENSHOTS, `${screenshot}.png`) });
    }
    return executed;
  }

  async function executeTwice(method: string, path: string, name: string, prepare?: (block: ElementHandle) => Promise<void>) {
    const block = await operation(method, path);
    if (prepare) await prepare(block);
    const first = await execute(block, method, path);
    const second = await execute(block, method, path, name);
    for (const answer of [first, second]) {
      // The body is in the message when it fails: the error code says what went wrong.
      expect({ name, status: answer.status, body: answer.status < 300 ? 'ok' : answer.body }).toEqual({
        name,
        status: answer.status,
        body: 'ok',
      });
    }
    return { block, first, second };
  }

  it('creates a customer twice as pre-filled, then credits its wallet twice', async () => {
    const { first, second } = await executeTwice('post', '/v1/customers', 'create-customer');
    expect(JSON.parse(second.body).id).not.toBe(JSON.parse(first.body).id);
    const wallet = JSON.parse(second.body).primary_wallet_id as string;
    const credit = await executeTwice('post', '/v1/wallets/{id}/credit', 'credit', (block) => fill(block, 'id', wallet));
    // Two credits, not a replay of the first: two ledger entries, the balance holds both amounts.
    const [one, two] = [JSON.parse(credit.first.body), JSON.parse(credit.second.body)];
    expect(two.id).not.toBe(one.id);
    const balance = await t.http.get(`/v1/wallets/${wallet}`).set('Authorization', tenant.sandboxAuth);
    expect(balance.status).toBe(200);
    expect(balance.body).toEqual(expect.objectContaining({ cash_balance: expect.any(String) }));
  });

  it('creates a cost and a plan twice as pre-filled', async () => {
    await executeTwice('post', '/v1/costs', 'create-cost');
    await executeTwice('post', '/v1/plans', 'create-plan');
  });

  it('lists plans with a tag and a custom field filter, after a reload (the key is kept)', async () => {
    await openDocs();
    const { second } = await executeTwice('get', '/v1/plans', 'list-plans', async (block) => {
      await block.$eval('tr[data-param-name="tag"] button', (node) => (node as any).click());
      await block.waitForSelector('tr[data-param-name="tag"] input');
      expect(await block.$eval('tr[data-param-name="tag"] input', (node) => (node as any).value)).not.toBe('string');
      await fill(block, 'custom_fields', '{"region": "eu"}');
    });
    expect(second.url).toContain('custom_fields%5Bregion%5D=eu');
    expect(second.url).toMatch(/tag=[a-z]/);
  });

  it('previews a system template as a PDF that downloads as one', async () => {
    const { block } = await executeTwice('post', '/v1/document_templates/{id}/preview', 'preview-pdf');
    const link = await block.waitForSelector('a.billing-pdf-download');
    const head = await link!.evaluate(async (node) => {
      const bytes = new Uint8Array(await (await fetch(node.getAttribute('href')!)).arrayBuffer());
      return { start: String.fromCharCode(...bytes.slice(0, 5)), size: bytes.length, download: node.getAttribute('download') };
    });
    expect(head.start).toBe('%PDF-');
    expect(head.download).toMatch(/\.pdf$/);
    expect(head.size).toBeGreaterThan(1000);
  });

  it('shows a system template’s thumbnail as an image', async () => {
    const { block } = await executeTwice('get', '/v1/document_templates/{id}/thumbnail', 'thumbnail-svg');
    const image = await block.waitForSelector('img.billing-svg-image').catch(async (error: unknown) => {
      await (await block.$('.responses-inner > div'))?.screenshot({ path: join(SCREENSHOTS, 'no-thumbnail.png') });
      throw error;
    });
    await page.waitForFunction((node) => (node as any).complete, {}, image);
    expect(await image!.evaluate((node) => (node as any).naturalWidth)).toBeGreaterThan(0);
  });
});
