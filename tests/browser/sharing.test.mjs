// Sharing and keeping text, end to end in headless Chromium against the built site:
// permalinks into a fresh browser, hostile links, the text kept aside by a link, autosave
// across reloads, the dark theme, and an offline reload served by the service worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launch, screenshot, watchErrors, URL as SITE } from './harness.mjs';

const WAIT = { timeout: 30_000 };
const BASE = SITE.split('#')[0];

/** Opens `url` in `page` and waits until the app is up. */
async function open(page, url) {
  await page.goto(url);
  await page.waitForSelector('#source', WAIT);
  await page.waitForSelector('.tabs .tab.active', WAIT);
}

const source = (page) => page.$eval('#source', (t) => t.value);
const activeTab = (page) => page.$eval('.tabs .tab.active', (t) => t.id);
const stepText = (page) => page.$$eval('#step-text', (ps) => ps.map((p) => p.textContent).join(''));

/** Replaces the editor's text as a user would (select all, type). */
async function typeProgram(page, text) {
  await page.click('#source');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Waits until localStorage's autosave holds `text` (the app saves after each edit). */
async function autosaved(page, text) {
  await page.waitForFunction(
    (t) => {
      try {
        return JSON.parse(localStorage.getItem('optlab.v1.autosave') ?? 'null')?.src === t;
      } catch {
        return false;
      }
    },
    text,
    WAIT,
  );
}

/** An lz-string stream written by hand (URI alphabet): codes low bit first, 6 bits a char. */
function bomb(codes) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-';
  const bits = [];
  const code = (v, w) => {
    for (let i = 0; i < w; i++) bits.push((v >> i) & 1);
  };
  // One literal, then `codes` codes that each name the entry being defined: entry k is k+1
  // units long, so the output is about codes²/2 units (8 million for 4,000 codes).
  code(0, 2);
  code(97, 8);
  let [dict, width, enlarge] = [4, 3, 4];
  for (let k = 0; k < codes; k++) {
    code(dict++, width);
    if (--enlarge === 0) {
      enlarge = 1 << width;
      width++;
    }
  }
  code(2, width);
  let out = '';
  for (let i = 0; i < bits.length; i += 6) {
    let v = 0;
    for (let j = 0; j < 6; j++) v |= (bits[i + j] ?? 0) << (5 - j);
    out += alphabet[v];
  }
  return out;
}

const MY_PROGRAM = '# my own program\n@main {\n  x: int = const 7;\n  print x;\n}\n';

let ctx;
let page;
const errors = [];

before(async () => {
  ctx = await launch();
  page = ctx.pages()[0] ?? (await ctx.newPage());
  watchErrors(page, errors);
});

after(async () => {
  await ctx?.close();
});

test('a copied link opens exactly that screen in a fresh browser', { timeout: 120_000 }, async () => {
  await open(page, SITE);
  await page.selectOption('#example', 'lcm-article');
  await page.click('#tab-lcm');
  await page.waitForSelector('#step-text', WAIT);
  for (let i = 0; i < 3; i++) await page.click('.step-next');
  const want = { source: await source(page), tab: await activeTab(page), step: await stepText(page) };
  assert.equal(want.tab, 'tab-lcm');
  assert.match(want.source, /\.n13:/);
  await page.click('#copy-link');
  const link = await page.inputValue('#share-url');
  assert.ok(link.startsWith(BASE) && link.includes('#s='), link);

  const fresh = await launch();
  try {
    const p = fresh.pages()[0] ?? (await fresh.newPage());
    const freshErrors = [];
    watchErrors(p, freshErrors);
    await open(p, link);
    await p.waitForSelector('#step-text', WAIT);
    assert.equal(await source(p), want.source);
    assert.equal(await activeTab(p), want.tab);
    assert.equal(await stepText(p), want.step);
    await screenshot(p, 'sharing-link-opened');
    assert.deepEqual(freshErrors, []);
  } finally {
    await fresh.close();
  }
});

test('hostile and broken links show a message and keep the saved text', { timeout: 120_000 }, async () => {
  await open(page, SITE);
  await typeProgram(page, MY_PROGRAM);
  await autosaved(page, MY_PROGRAM);
  await page.click('#copy-link');
  const valid = (await page.inputValue('#share-url')).split('#')[1];
  const hostile = {
    garbage: '#s=<script>alert(1)</script>',
    truncated: `#${valid.slice(0, Math.floor(valid.length / 2))}`,
    bomb: `#s=${bomb(4000)}`,
    'too long': `#s=${'A'.repeat(300 * 1024)}`,
  };
  for (const [what, frag] of Object.entries(hostile)) {
    await page.goto('about:blank');
    await page.goto(BASE + frag);
    await page.waitForSelector('#source', WAIT);
    const notice = await page.waitForSelector('.notice.error', WAIT);
    const text = await notice.textContent();
    assert.match(text, /link/i, `${what}: ${text}`);
    assert.equal(await source(page), MY_PROGRAM, `${what}: the editor keeps the user's text`);
    if (what === 'bomb') await screenshot(page, 'sharing-hostile-link');
  }
  // The saved text survives a plain reload afterwards.
  await open(page, BASE);
  assert.equal(await source(page), MY_PROGRAM);
  assert.deepEqual(errors, []);
});

test("a link keeps the user's text aside and offers it back", { timeout: 120_000 }, async () => {
  await open(page, BASE);
  // A link to another program (the diamond example's screen).
  await page.selectOption('#example', 'diamond');
  await page.click('#copy-link');
  const link = await page.inputValue('#share-url');
  // My own text, saved; then the link is opened in a new tab of the same browser.
  await typeProgram(page, MY_PROGRAM);
  await autosaved(page, MY_PROGRAM);
  const tab = await ctx.newPage();
  watchErrors(tab, errors);
  await open(tab, link);
  assert.match(await source(tab), /br cond \.left \.right;/);
  await tab.click('.notice .go-back');
  await tab.waitForFunction((t) => document.querySelector('#source')?.value === t, MY_PROGRAM, WAIT);
  await tab.close();
  assert.deepEqual(errors, []);
});

test("the editor's text survives a reload", { timeout: 60_000 }, async () => {
  await open(page, BASE);
  const text = '# autosave check\n@main {\n  y: int = const 3;\n  print y;\n}\n';
  await typeProgram(page, text);
  await autosaved(page, text);
  await page.reload();
  await page.waitForSelector('#source', WAIT);
  assert.equal(await source(page), text);
});

/** The page background's relative luminance (0 black … 1 white). */
async function backgroundLuminance(p) {
  return p.evaluate(() => {
    const [r, g, b] = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
    const lin = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  });
}

test('dark mode follows the system and the toggle overrides it across reloads', { timeout: 60_000 }, async () => {
  const c = await launch({ colorScheme: 'dark' });
  try {
    const p = c.pages()[0] ?? (await c.newPage());
    const pErrors = [];
    watchErrors(p, pErrors);
    await open(p, BASE);
    assert.equal(await p.getAttribute('html', 'data-theme'), null, 'no choice yet');
    assert.ok((await backgroundLuminance(p)) < 0.1, 'the system asks for dark');
    await screenshot(p, 'sharing-dark');
    await p.click('#theme');
    await p.waitForFunction(() => document.documentElement.dataset.theme === 'light', null, WAIT);
    assert.ok((await backgroundLuminance(p)) > 0.8, 'the toggle chose light');
    await p.reload();
    await p.waitForSelector('#source', WAIT);
    assert.equal(await p.getAttribute('html', 'data-theme'), 'light', 'the choice is kept');
    assert.ok((await backgroundLuminance(p)) > 0.8);
    await p.click('#theme');
    await p.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, WAIT);
    assert.ok((await backgroundLuminance(p)) < 0.1);
    // A light system with no choice shows light.
    await p.evaluate(() => localStorage.removeItem('optlab.v1.theme'));
    await p.emulateMedia({ colorScheme: 'light' });
    await p.reload();
    await p.waitForSelector('#source', WAIT);
    assert.equal(await p.getAttribute('html', 'data-theme'), null);
    assert.ok((await backgroundLuminance(p)) > 0.8);
    assert.deepEqual(pErrors, []);
  } finally {
    await c.close();
  }
});

/**
 * A front for the site that can be taken down: a proxy on its own port (so its own origin
 * and service worker). Stopping it makes "offline" real; Chromium's offline emulation alone
 * does not reach a service worker's own fetches.
 */
async function startProxy() {
  const sockets = new Set();
  const server = createServer(async (req, res) => {
    try {
      const upstream = await fetch(new URL(req.url, BASE), { headers: { 'cache-control': 'no-cache' } });
      const headers = {};
      for (const h of ['content-type', 'cache-control', 'last-modified', 'etag']) {
        const v = upstream.headers.get(h);
        if (v) headers[h] = v;
      }
      res.writeHead(upstream.status, headers);
      res.end(Buffer.from(await upstream.arrayBuffer()));
    } catch (e) {
      res.writeHead(502).end(String(e));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  let stopped = false;
  const stop = () =>
    new Promise((r) => {
      if (stopped) return r();
      stopped = true;
      server.close(() => r());
      for (const s of sockets) s.destroy();
    });
  // The same path as the site (it may live under a sub-path).
  return { url: `http://127.0.0.1:${server.address().port}${new URL(BASE).pathname}`, stop };
}

test('after one visit the site reloads offline', { timeout: 120_000 }, async () => {
  const proxy = await startProxy();
  const c = await launch();
  try {
    const p = c.pages()[0] ?? (await c.newPage());
    const pErrors = [];
    watchErrors(p, pErrors);
    await open(p, proxy.url);
    await p.waitForSelector('svg g.node', WAIT);
    // The worker controls the page (clients.claim) once it has cached the site.
    await p.waitForFunction(() => navigator.serviceWorker?.controller != null, null, WAIT);
    const online = await source(p);
    await proxy.stop();
    await c.setOffline(true);
    await p.reload();
    await p.waitForSelector('#source', WAIT);
    await p.waitForSelector('svg g.node', WAIT);
    assert.equal(await source(p), online);
    await screenshot(p, 'sharing-offline');
    // Failed network requests are expected offline; the app itself must not fail.
    assert.deepEqual(pErrors.filter((e) => !/ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED|Failed to fetch/.test(e)), []);
  } finally {
    await c.close();
    await proxy.stop();
  }
});
