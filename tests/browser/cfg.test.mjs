// End to end: the built app (dist/, served by scripts/test.sh at OPTLAB_URL) in Debian's
// headless Chromium driven by playwright-core. Run: scripts/test.sh e2e
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const URL = process.env.OPTLAB_URL ?? 'http://127.0.0.1:8080/';
const ARTIFACTS = process.env.OPTLAB_ARTIFACTS ?? join(here, '..', 'artifacts');

// The CFG of static/examples/loop.bril, the example loaded at start.
const LOOP_BLOCKS = ['entry', 'loop', 'body', 'odd', 'next', 'done'];

let context;
let page;
let userDataDir;
const pageErrors = [];

before(async () => {
  userDataDir = mkdtempSync(join(tmpdir(), 'optlab-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 900 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
});

after(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function blockTitles() {
  return page.$$eval('.graph svg g.node text.title', (ts) => ts.map((t) => t.textContent));
}

test('the example program\'s CFG is drawn with its block labels', { timeout: 60_000 }, async () => {
  await page.goto(URL);
  await page.waitForSelector('.graph svg g.node', { timeout: 30_000 });
  const errors = await page.$$eval('#errors', (es) => es.map((e) => e.textContent));
  assert.deepEqual(errors, [], 'the example must parse');
  assert.deepEqual(await blockTitles(), LOOP_BLOCKS);
  // Each block shows its code, and there is one edge per CFG edge.
  const code = await page.$eval('.graph g.node[data-id="loop"] text.code', (t) => t.textContent);
  assert.match(code, /br\b.*\bcond\b/);
  assert.equal(await page.locator('.graph svg path.edge').count(), 7);
  // The drawing fits its content: no huge empty margin below the last box.
  const svgBox = await page.locator('.graph svg').boundingBox();
  const nodesBox = await page.locator('.graph svg g.nodes').boundingBox();
  assert.ok(svgBox.height < nodesBox.height + 80, `svg ${svgBox.height}px for ${nodesBox.height}px of boxes`);

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'cfg.png'), fullPage: true });
  assert.deepEqual(pageErrors, []);
});

test('editing the program redraws the CFG or shows the parse error', { timeout: 60_000 }, async () => {
  await page.goto(URL);
  await page.waitForSelector('.graph svg g.node');
  const diamond = [
    '@main {',
    '.entry:',
    '  c: bool = const true;',
    '  br c .left .right;',
    '.left:',
    '  jmp .end;',
    '.right:',
    '  jmp .end;',
    '.end:',
    '  ret;',
    '}',
    '',
  ].join('\n');
  await page.fill('#source', diamond);
  await page.waitForFunction(() => document.querySelectorAll('.graph svg g.node').length === 4);
  assert.deepEqual(await blockTitles(), ['entry', 'left', 'right', 'end']);

  await page.fill('#source', '@main {\n  x: int = const;\n');
  const err = await page.waitForSelector('#errors');
  assert.match(await err.textContent(), /loop\.bril:\d+:\d+: error/);
  assert.equal(await page.locator('.graph svg').count(), 0);
  await page.screenshot({ path: join(ARTIFACTS, 'parse-error.png') });

  await page.selectOption('#example', '1');
  await page.waitForFunction(() => document.querySelectorAll('.graph svg g.node').length === 4);
  assert.match(await page.inputValue('#source'), /both arms/);
  assert.deepEqual(pageErrors, []);
});
