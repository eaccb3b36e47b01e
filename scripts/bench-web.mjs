#!/usr/bin/env node
// Time from a keystroke in the editor to the repainted CFG, in headless Chromium, for generated
// functions of 50, 200 and 1,000 blocks (`optlab gen`). A measurement, not a test: it prints a
// table and exits 0 unless the page never shows the expected graph.
//
//   scripts/bench-web.mjs [URL] [--sizes 50,200,1000] [--runs 5] [--optlab PATH]
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
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../tests/browser/harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const opts = { url: process.env.OPTLAB_URL ?? 'http://127.0.0.1:8080/', sizes: [50, 200, 1000], runs: 5, optlab: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--sizes') opts.sizes = argv[++i].split(',').map(Number);
    else if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--optlab') opts.optlab = argv[++i];
    else if (a === '-h' || a === '--help') {
      console.log('usage: scripts/bench-web.mjs [URL] [--sizes 50,200,1000] [--runs 5] [--optlab PATH]');
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

// The CFG's boxes: GraphView's own container, or a `.graph` pane around it.
const NODES = ':is(.graph, .graph-view) svg g.node';

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

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const context = await launch();
  const page = context.pages()[0] ?? (await context.newPage());
  const rows = [];
  try {
    for (const n of opts.sizes) {
      const text = generate(n, opts.optlab);
      const blocks = (text.match(/^\.[^\s:]+:/gm) ?? []).length;
      await page.goto(opts.url);
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
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
