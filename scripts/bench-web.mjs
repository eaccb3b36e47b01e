#!/usr/bin/env node
// Time from a keystroke in the editor to the repainted CFG, and from a click on a view's tab to
// the frame showing that view, in headless Chromium, for generated functions of 500 and 1,000
// blocks (`optlab gen`). A measurement, not a test: it prints two tables and exits 0 unless the
// page never shows the expected graph or view.
//
//   scripts/bench-web.mjs [URL] [--sizes 500,1000] [--runs 5] [--tab-sizes 1000] [--optlab PATH]
//
// URL (default $OPTLAB_URL or http://127.0.0.1:8080/) serves a release build of dist/, e.g.
//   trunk build --release && python3 -m http.server 8080 --bind 127.0.0.1 --directory dist
//
// How: load the generated program into `#source` and wait until the CFG (`svg g.node` in
// `.graph` or `.graph-view`) shows its
// blocks. Each run then types `.xK` before the closing `}` (a parse error: the graph stays),
// and times the keystroke `:` that completes the label `.xK:` — one more (empty) block, so a
// new graph that no cache has seen — until the frame in which the CFG has one more node.
// The time includes the editor's debounce, parsing, the CFG, layout (worker) and painting.
//
// Tab switch: with the function loaded and every pass run (the page runs them in the
// background after showing the graph), each run clicks the CFG tab (untimed), then the tab,
// timed in the page from the click to the first frame after the view is in the DOM with its
// graph drawn (for views with a graph) — the view's own model, its render, the layout (the
// CFG's is cached; other graphs go to the worker) and the paint.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../tests/browser/harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const opts = { url: process.env.OPTLAB_URL ?? 'http://127.0.0.1:8080/', sizes: [500, 1000], runs: 5, tabSizes: [1000], optlab: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--sizes') opts.sizes = argv[++i].split(',').map(Number);
    else if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--tab-sizes') opts.tabSizes = argv[++i].split(',').filter(Boolean).map(Number);
    else if (a === '--optlab') opts.optlab = argv[++i];
    else if (a === '-h' || a === '--help') {
      console.log('usage: scripts/bench-web.mjs [URL] [--sizes 500,1000] [--runs 5] [--tab-sizes 1000] [--optlab PATH]');
      process.exit(0);
    } else opts.url = a;
  }
  if (!opts.sizes.every((n) => Number.isInteger(n) && n > 0) || !(opts.runs > 0)) {
    throw new Error('--sizes takes positive integers, --runs a positive number');
  }
  return opts;
}

/** `optlab gen --blocks n`, from a built binary if there is one, else through cargo. */
function generate(n, optlab) {
  const args = ['gen', '--blocks', String(n), '--seed', '1'];
  const targets = [process.env.CARGO_TARGET_DIR, join(root, 'target')].filter(Boolean);
  const built = optlab ?? targets.flatMap((t) => [join(t, 'release', 'optlab'), join(t, 'debug', 'optlab')]).find(existsSync);
  if (built) return execFileSync(built, args, { encoding: 'utf8' });
  return execFileSync('cargo', ['run', '-q', '--release', '-p', 'optlab-cli', '--', ...args], { cwd: root, encoding: 'utf8' });
}

// The CFG's boxes: GraphView's own container, or a `.graph` pane around it, in the view shown
// (not in a view left, kept hidden in the page).
const NODES = '.view :is(.graph, .graph-view) svg g.node';

const nodeCount = (page) => page.locator(NODES).count();

async function waitForNodes(page, n, timeout = 120_000) {
  await page.waitForFunction(([sel, n]) => document.querySelectorAll(sel).length === n, [NODES, n], { timeout, polling: 50 });
}

/** Puts `text` in the editor and waits for its CFG (`blocks` nodes). */
async function load(page, text, blocks) {
  await page.locator('#source').fill(text);
  await waitForNodes(page, blocks);
}

/** One timed keystroke: ':' completing a label, until the frame showing `target` nodes. */
async function timeKeystroke(page, target) {
  await page.evaluate(([sel, target]) => {
    const bench = (window.__optlabBench = { t0: null, t1: null });
    document.querySelector('#source').addEventListener('keydown', () => (bench.t0 ??= performance.now()), { once: true, capture: true });
    const check = () => {
      if (bench.t0 !== null && document.querySelectorAll(sel).length === target) bench.t1 = performance.now();
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  }, [NODES, target]);
  await page.keyboard.press(':');
  await page.waitForFunction(() => window.__optlabBench.t1 !== null, null, { timeout: 120_000, polling: 20 });
  return page.evaluate(() => window.__optlabBench.t1 - window.__optlabBench.t0);
}

/** One timed tab switch: a click on `#tab-SLUG` until the frame after the view (and its graph,
 * if it draws one) is in the DOM. */
async function timeTab(page, slug) {
  return page.evaluate(async (slug) => {
    // Views left recently stay in the page hidden (web/src/views/keep.rs): the view counts
    // once it is shown, with its graph drawn and not pending a layout.
    const ready = () => {
      const v = document.querySelector(`.view.view-${slug}`);
      if (!v || !v.checkVisibility()) return false;
      const graphs = [...v.querySelectorAll('.graph-view, .graph')];
      return graphs.every((g) => !g.classList.contains('pending') && g.querySelector('svg g.node') !== null);
    };
    const t0 = performance.now();
    document.querySelector(`#tab-${slug}`).click();
    await new Promise((resolve, reject) => {
      const give = setTimeout(() => reject(new Error(`${slug}: no view after 60 s`)), 60_000);
      const check = () => (ready() ? (clearTimeout(give), resolve()) : requestAnimationFrame(check));
      requestAnimationFrame(check);
    });
    // The next frame: the one that painted the view.
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    return performance.now() - t0;
  }, slug);
}

/** Each tab's switch time (`runs` runs), from the CFG tab, on the loaded function. */
async function timeTabs(page, runs) {
  const slugs = await page.$$eval('.tabs [role="tab"]', (ts) => ts.map((t) => [t.id.replace(/^tab-/, ''), t.textContent]));
  // The background passes and the pipeline finish first (they run right after the graph shows).
  await page.waitForTimeout(3000);
  const out = [];
  for (const [slug, title] of slugs) {
    if (slug === 'cfg') continue;
    const times = [];
    for (let k = 0; k < runs; k++) {
      await page.click('#tab-cfg');
      await page.waitForSelector('.view.view-cfg svg g.node', { timeout: 60_000 });
      await page.waitForTimeout(300);
      times.push(await timeTab(page, slug));
    }
    out.push({ slug, title, times });
    console.error(`  tab ${title}: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
  }
  await page.click('#tab-cfg');
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const context = await launch();
  const page = context.pages()[0] ?? (await context.newPage());
  const rows = [];
  const tabRows = [];
  try {
    for (const n of opts.sizes) {
      const text = generate(n, opts.optlab);
      const blocks = (text.match(/^\.[^\s:]+:/gm) ?? []).length;
      await page.goto(opts.url);
      // The first-visit build hands the page to the full app about a second after its first
      // graph: measure the full app (the one users type into), not the hand-over.
      await page.waitForSelector('[data-app="full"]', { timeout: 60_000 });
      await page.waitForSelector(NODES, { timeout: 60_000 });
      const t0 = Date.now();
      await load(page, text.trimEnd(), blocks);
      const loadMs = Date.now() - t0;
      const times = [];
      for (let k = 1; k <= opts.runs; k++) {
        await page.locator('#source').click();
        // Just before the closing brace: `.xK` is a parse error there (the graph stays).
        await page.keyboard.press('Control+End');
        await page.keyboard.press('ArrowLeft');
        await page.keyboard.type(`.x${k}`);
        await page.waitForTimeout(400);
        if ((await nodeCount(page)) !== blocks + k - 1) throw new Error(`${n}: the graph changed before the keystroke`);
        times.push(await timeKeystroke(page, blocks + k));
        // `.xK:}` → `.xK:` and `}` on its own line again (same graph).
        await page.keyboard.press('Enter');
      }
      rows.push({ n, blocks, loadMs, times });
      console.error(`${n} blocks: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
      if (opts.tabSizes.includes(n)) tabRows.push({ n, blocks, tabs: await timeTabs(page, opts.runs) });
    }
  } finally {
    await context.close();
  }
  console.log(`\nkeystroke → repainted CFG, headless Chromium, ${opts.runs} runs each (${opts.url})\n`);
  console.log('| asked | blocks | first load (ms) | median (ms) | min (ms) | max (ms) |');
  console.log('|------:|-------:|----------------:|------------:|---------:|---------:|');
  for (const r of rows) {
    const f = (x) => x.toFixed(0);
    console.log(`| ${r.n} | ${r.blocks} | ${r.loadMs} | ${f(median(r.times))} | ${f(Math.min(...r.times))} | ${f(Math.max(...r.times))} |`);
  }
  for (const t of tabRows) {
    console.log(`\ntab switch (click → the frame showing the view), ${t.blocks} blocks, ${opts.runs} runs each\n`);
    console.log('| view | median (ms) | min (ms) | max (ms) |');
    console.log('|---|---:|---:|---:|');
    const f = (x) => x.toFixed(0);
    for (const r of t.tabs) console.log(`| ${r.title} | ${f(median(r.times))} | ${f(Math.min(...r.times))} | ${f(Math.max(...r.times))} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
