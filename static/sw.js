// optlab's service worker: after the first visit the lab keeps working offline.
//
// trunk names the wasm, JS and CSS files after their content hash, and the names change with
// every build, so there is no fixed list of files to precache. Instead:
// - on install, the worker fetches the page and caches it together with every same-origin
//   file the page names (the current build's hashed files), so one visit is enough;
// - navigations go to the network first (a new build shows as soon as it is online) and fall
//   back to the cached page when the network fails or stalls;
// - hashed files come from the cache first (a hashed name never changes content), else from
//   the network, and are cached as they arrive; other same-origin files go to the network
//   first and fall back to their cached copy;
// - each fresh copy of the page refreshes the cache: its files are fetched, and hashed files
//   no page of this build names any more are dropped.
// clients.claim() puts the page that registered the worker under its control at once, so a
// reload right after the first visit already works offline.
//
// Everything is relative to the worker's scope (the folder of the page that registered
// sw.js), so the site works under any sub-path.

const CACHE = 'optlab-v1';
const SCOPE = new URL(self.registration.scope);
const PAGE = new URL('./', SCOPE).href;
// Give up on a stalled network after this long when a cached page can answer instead.
const NAVIGATION_TIMEOUT_MS = 4000;
// Files the page loads that index.html does not name, which trunk builds without a hash: the
// graph layout worker (web/src/graph/web.rs, DEFAULT_WORKER_URL) and the full app the first
// build hands the page to (web/src/handoff.rs, FULL_SCRIPT and FULL_WASM). A missing one is
// skipped.
const EXTRA_FILES = [
  'optlab-layout_loader.js',
  'optlab-layout.js',
  'optlab-layout_bg.wasm',
  'optlab-full.js',
  'optlab-full_bg.wasm',
  'css/dom.css',
  'css/dce.css',
  'css/lcm.css',
  'css/copyprop.css',
  'css/types.css',
  'css/ownership.css',
  'css/lowering.css',
  'css/ssa.css',
];
// trunk's hashed file names: name-0123456789abcdef.ext (and name-…_bg.wasm).
const HASHED = /-[0-9a-f]{16}(_bg)?\.[a-z0-9]+$/;

/** Same-origin files under the scope that `html` refers to, as absolute URLs. */
function assetsOf(html, base) {
  const urls = new Set();
  const quoted = /["']([^"'\s<>]+\.(?:js|wasm|css|svg|png|ico|json|woff2?|webmanifest))["']/g;
  for (const m of html.matchAll(quoted)) {
    try {
      const url = new URL(m[1], base);
      if (url.origin === SCOPE.origin && url.href.startsWith(SCOPE.href) && !url.pathname.endsWith('/sw.js')) {
        url.hash = '';
        urls.add(url.href);
      }
    } catch {
      // Not a URL after all (a string in inline script): skip it.
    }
  }
  return [...urls];
}

/** Caches `page` (a fresh response for the page) and its files; drops stale hashed files. */
async function refresh(page, pageUrl) {
  const cache = await caches.open(CACHE);
  const html = await page.clone().text();
  const named = assetsOf(html, pageUrl);
  const assets = [...named, ...EXTRA_FILES.map((f) => new URL(f, SCOPE).href)];
  // One file that fails (offline again, removed) must not keep the others out.
  await Promise.allSettled(
    assets.map(async (url) => {
      if (HASHED.test(new URL(url).pathname) && (await cache.match(url))) return;
      const res = await fetch(url, { cache: 'no-cache' });
      if (res.ok) await cache.put(url, res);
    }),
  );
  await cache.put(PAGE, page);
  const keep = new Set(assets);
  for (const req of await cache.keys()) {
    if (HASHED.test(new URL(req.url).pathname) && !keep.has(req.url)) await cache.delete(req);
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      try {
        const page = await fetch(PAGE, { cache: 'no-cache' });
        if (page.ok) await refresh(page, PAGE);
      } catch (e) {
        // Installing must not fail because of the network: the cache also fills as pages load.
        console.warn('optlab: could not prepare the offline copy yet:', e);
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith('optlab-') && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

async function cachedPage(request) {
  const cache = await caches.open(CACHE);
  return (await cache.match(request, { ignoreSearch: true })) ?? (await cache.match(PAGE));
}

async function navigate(event) {
  const network = fetch(event.request);
  const stalled = new Promise((resolve) => setTimeout(resolve, NAVIGATION_TIMEOUT_MS, 'stalled'));
  try {
    const res = await Promise.race([network, stalled]);
    if (res === 'stalled') {
      const cached = await cachedPage(event.request);
      if (cached) return cached;
      return await network;
    }
    // Only the page itself refreshes the cache (not an error page, not another document).
    const url = new URL(event.request.url);
    url.search = '';
    url.hash = '';
    if (res.ok && (url.href === PAGE || url.href === new URL('index.html', SCOPE).href)) {
      event.waitUntil(refresh(res.clone(), url.href).catch((e) => console.warn('optlab: cache refresh failed:', e)));
    }
    return res;
  } catch (e) {
    const cached = await cachedPage(event.request);
    if (cached) return cached;
    throw e;
  }
}

async function cacheFirst(event) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(event.request);
  if (hit) return hit;
  const res = await fetch(event.request);
  if (res.ok && res.type === 'basic') event.waitUntil(cache.put(event.request, res.clone()));
  return res;
}

async function networkFirst(event) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(event.request);
    if (res.ok && res.type === 'basic') event.waitUntil(cache.put(event.request, res.clone()));
    return res;
  } catch (e) {
    const hit = await cache.match(event.request);
    if (hit) return hit;
    throw e;
  }
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.href.startsWith(SCOPE.href)) return;
  if (request.mode === 'navigate') event.respondWith(navigate(event));
  else if (HASHED.test(url.pathname)) event.respondWith(cacheFirst(event));
  else event.respondWith(networkFirst(event));
});
