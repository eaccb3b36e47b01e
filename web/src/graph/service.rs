//! Which layouts to compute, in what order, and which are already known: the bookkeeping of
//! the layout worker, without the worker (so it is tested natively; `web.rs` does the I/O).
//!
//! - Layouts are cached by [`Graph::layout_key`] (checked against the graph itself, so a hash
//!   collision cannot show a wrong drawing); stepping through a pass never lays out again.
//! - One job runs at a time; requests for a graph already queued or running join that job.
//! - A requester that goes away (the graph changed again while typing) cancels its ticket; a
//!   queued job nobody waits for is dropped, so fast typing does not build a backlog.
//! - Prefetches (the other views' graphs, laid out while the page is idle so that switching
//!   to them finds their layouts) wait behind every request and start only when no request
//!   is queued; a request for a prefetched graph takes its job over. An edit drops them all
//!   ([`Scheduler::cancel_prefetch`]).

use super::{Graph, Layout, Style};
use std::collections::VecDeque;
use std::rc::Rc;

/// Identifies one request, to cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ticket(pub u64);

/// A job the backend should start now.
#[derive(Clone, Debug)]
pub struct Start {
    pub job: u64,
    pub graph: Rc<Graph>,
    pub style: Style,
}

struct Job<W> {
    id: u64,
    key: u64,
    graph: Rc<Graph>,
    style: Style,
    waiters: Vec<(Ticket, W)>,
    /// A prefetch: kept without waiters (until [`Scheduler::cancel_prefetch`]).
    prefetch: bool,
}

impl<W> Job<W> {
    fn is_for(&self, key: u64, graph: &Rc<Graph>) -> bool {
        self.key == key && (Rc::ptr_eq(&self.graph, graph) || *self.graph == **graph)
    }
}

struct Entry {
    key: u64,
    graph: Rc<Graph>,
    layout: Rc<Layout>,
}

/// `W` is what to call back when a layout is ready (a yew `Callback` in the browser).
pub struct Scheduler<W> {
    cache: VecDeque<Entry>,
    capacity: usize,
    queue: VecDeque<Job<W>>,
    /// Prefetches, in the order asked; they start only when `queue` is empty.
    prefetches: VecDeque<Job<W>>,
    running: Option<Job<W>>,
    next_id: u64,
}

impl<W> Scheduler<W> {
    /// A scheduler remembering the last `capacity` layouts.
    pub fn new(capacity: usize) -> Scheduler<W> {
        Scheduler {
            cache: VecDeque::new(),
            capacity: capacity.max(1),
            queue: VecDeque::new(),
            prefetches: VecDeque::new(),
            running: None,
            next_id: 1,
        }
    }

    fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The cached layout of `graph` in `style`, if any (and marks it recently used).
    pub fn lookup(&mut self, graph: &Rc<Graph>, style: &Style) -> Option<Rc<Layout>> {
        let key = graph.layout_key(style);
        let pos =
            self.cache.iter().position(|e| e.key == key && (Rc::ptr_eq(&e.graph, graph) || *e.graph == **graph))?;
        let entry = self.cache.remove(pos)?;
        let layout = entry.layout.clone();
        self.cache.push_back(entry);
        Some(layout)
    }

    /// Remembers a layout computed elsewhere (e.g. synchronously for a small graph).
    pub fn insert(&mut self, graph: Rc<Graph>, layout: Rc<Layout>) {
        let key = layout.key;
        self.cache.retain(|e| !(e.key == key && *e.graph == *graph));
        self.cache.push_back(Entry { key, graph, layout });
        while self.cache.len() > self.capacity {
            self.cache.pop_front();
        }
    }

    /// Asks for the layout of `graph`; `waiter` gets it from [`Scheduler::finish`]. Call
    /// [`Scheduler::next_start`] afterwards to see whether the backend should start a job.
    pub fn request(&mut self, graph: Rc<Graph>, style: &Style, waiter: W) -> Ticket {
        let ticket = Ticket(self.fresh_id());
        let key = graph.layout_key(style);
        if let Some(job) = self.running.iter_mut().chain(self.queue.iter_mut()).find(|j| j.is_for(key, &graph)) {
            job.waiters.push((ticket, waiter));
            return ticket;
        }
        // A prefetched graph is wanted now: its job joins the requests.
        if let Some(pos) = self.prefetches.iter().position(|j| j.is_for(key, &graph)) {
            if let Some(mut job) = self.prefetches.remove(pos) {
                job.waiters.push((ticket, waiter));
                self.queue.push_back(job);
                return ticket;
            }
        }
        let id = self.fresh_id();
        let job = Job { id, key, graph, style: style.clone(), waiters: vec![(ticket, waiter)], prefetch: false };
        self.queue.push_back(job);
        ticket
    }

    /// Lays `graph` out when nothing else is asked for, and caches it; nothing if it is cached,
    /// queued or running already. Returns whether a job was queued.
    pub fn prefetch(&mut self, graph: Rc<Graph>, style: &Style) -> bool {
        let key = graph.layout_key(style);
        let known = self.cache.iter().any(|e| e.key == key && (Rc::ptr_eq(&e.graph, &graph) || *e.graph == *graph))
            || self.running.iter().chain(&self.queue).chain(&self.prefetches).any(|j| j.is_for(key, &graph));
        if known {
            return false;
        }
        let id = self.fresh_id();
        self.prefetches.push_back(Job { id, key, graph, style: style.clone(), waiters: Vec::new(), prefetch: true });
        true
    }

    /// Drops the queued prefetches (the program changed: they are of the old one). Returns
    /// whether the running job is a prefetch nobody waits for, which the backend may abandon
    /// ([`Scheduler::abandon`]) so that it does not delay the new program's layout.
    pub fn cancel_prefetch(&mut self) -> bool {
        self.prefetches.clear();
        self.running.as_ref().is_some_and(|j| j.prefetch && j.waiters.is_empty())
    }

    /// Forgets the running job (its backend was stopped); its result, if it comes, is ignored.
    pub fn abandon(&mut self) {
        self.running = None;
    }

    /// The request is no longer wanted. A queued job left without waiters is dropped; the
    /// running one finishes (its layout is cached).
    pub fn cancel(&mut self, ticket: Ticket) {
        for job in self.running.iter_mut().chain(self.queue.iter_mut()) {
            job.waiters.retain(|(t, _)| *t != ticket);
        }
        self.queue.retain(|j| !j.waiters.is_empty() || j.prefetch);
    }

    /// The job to start, if none is running.
    pub fn next_start(&mut self) -> Option<Start> {
        if self.running.is_some() {
            return None;
        }
        let job = self.queue.pop_front().or_else(|| self.prefetches.pop_front())?;
        let start = Start { job: job.id, graph: job.graph.clone(), style: job.style.clone() };
        self.running = Some(job);
        Some(start)
    }

    /// The running job again (to restart it elsewhere when the backend failed).
    pub fn running(&self) -> Option<Start> {
        self.running.as_ref().map(|j| Start { job: j.id, graph: j.graph.clone(), style: j.style.clone() })
    }

    /// Puts the running job back at the head of the queue (its backend went away).
    pub fn requeue(&mut self) {
        if let Some(job) = self.running.take() {
            if job.prefetch && job.waiters.is_empty() {
                self.prefetches.push_front(job);
            } else {
                self.queue.push_front(job);
            }
        }
    }

    /// Job `job` is done: caches the layout and returns the waiters to call with it (call them
    /// after releasing any borrow of the scheduler: they may request again). A stale or
    /// unknown job id returns nothing.
    pub fn finish(&mut self, job: u64, layout: Layout) -> (Rc<Layout>, Vec<W>) {
        let layout = Rc::new(layout);
        let Some(done) = self.running.take_if(|j| j.id == job) else { return (layout, Vec::new()) };
        self.insert(done.graph, layout.clone());
        (layout, done.waiters.into_iter().map(|(_, w)| w).collect())
    }

    /// Jobs not finished (running or queued, prefetches included).
    pub fn pending(&self) -> usize {
        self.queue.len() + self.prefetches.len() + usize::from(self.running.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::fixtures::{chain, diamond};
    use crate::graph::layout;

    fn run(s: &mut Scheduler<&'static str>) -> Vec<&'static str> {
        let start = s.next_start().expect("a job to start");
        s.finish(start.job, layout(&start.graph, &start.style)).1
    }

    #[test]
    fn a_finished_layout_is_cached_and_handed_to_every_waiter() {
        let mut s = Scheduler::new(4);
        let style = Style::default();
        let g = Rc::new(diamond());
        assert!(s.lookup(&g, &style).is_none());
        s.request(g.clone(), &style, "a");
        // The same graph (another Rc with equal content) joins the queued job.
        s.request(Rc::new(diamond()), &style, "b");
        assert_eq!(s.pending(), 1);
        let start = s.next_start().unwrap();
        assert!(s.next_start().is_none(), "one job at a time");
        s.request(g.clone(), &style, "c"); // joins the running job
        let (l, waiters) = s.finish(start.job, layout(&start.graph, &start.style));
        assert_eq!(waiters, ["a", "b", "c"]);
        assert_eq!(l.key, g.layout_key(&style));
        assert!(Rc::ptr_eq(&s.lookup(&Rc::new(diamond()), &style).unwrap(), &l));
        assert_eq!(s.pending(), 0);
        // Another style is another layout.
        assert!(s.lookup(&g, &Style::with_badges()).is_none());
    }

    #[test]
    fn cancelled_queued_jobs_are_dropped_but_the_running_one_completes() {
        let mut s = Scheduler::new(4);
        let style = Style::default();
        let (g1, g2, g3) = (Rc::new(chain(3)), Rc::new(chain(4)), Rc::new(chain(5)));
        let t1 = s.request(g1.clone(), &style, "1");
        let start = s.next_start().unwrap();
        let t2 = s.request(g2.clone(), &style, "2");
        s.request(g3.clone(), &style, "3");
        s.cancel(t1);
        s.cancel(t2);
        assert_eq!(s.pending(), 2, "running g1 and queued g3");
        let (_, waiters) = s.finish(start.job, layout(&g1, &style));
        assert!(waiters.is_empty());
        assert!(s.lookup(&g1, &style).is_some(), "cached even though nobody waited");
        assert_eq!(run(&mut s), ["3"]);
        assert!(s.lookup(&g2, &style).is_none());
    }

    #[test]
    fn stale_results_are_ignored_and_the_cache_is_bounded() {
        let mut s = Scheduler::new(2);
        let style = Style::default();
        let (l, w) = s.finish(99, Layout::default());
        assert!(w.is_empty() && l.nodes.is_empty());
        let graphs: Vec<Rc<Graph>> = (2..6).map(|n| Rc::new(chain(n))).collect();
        for g in &graphs {
            s.request(g.clone(), &style, "x");
            assert_eq!(run(&mut s), ["x"]);
        }
        assert!(s.lookup(&graphs[0], &style).is_none() && s.lookup(&graphs[1], &style).is_none());
        assert!(s.lookup(&graphs[2], &style).is_some() && s.lookup(&graphs[3], &style).is_some());
    }

    #[test]
    fn a_hash_collision_is_not_a_hit() {
        let mut s: Scheduler<()> = Scheduler::new(2);
        let style = Style::default();
        let g = Rc::new(diamond());
        let mut forged = layout(&chain(3), &style);
        forged.key = g.layout_key(&style); // pretend chain(3) hashed like the diamond
        s.insert(Rc::new(chain(3)), Rc::new(forged));
        assert!(s.lookup(&g, &style).is_none());
    }

    #[test]
    fn the_running_job_can_be_restarted_elsewhere() {
        let mut s = Scheduler::new(2);
        let style = Style::default();
        s.request(Rc::new(diamond()), &style, "w");
        let first = s.next_start().unwrap();
        let again = s.running().unwrap();
        assert_eq!(first.job, again.job);
        assert_eq!(s.finish(again.job, layout(&again.graph, &again.style)).1, ["w"]);
        assert!(s.running().is_none());
    }

    #[test]
    fn prefetches_wait_behind_requests_and_are_not_laid_out_twice() {
        let mut s = Scheduler::new(8);
        let style = Style::default();
        let (g1, g2, g3) = (Rc::new(chain(3)), Rc::new(chain(4)), Rc::new(chain(5)));
        assert!(s.prefetch(g1.clone(), &style));
        assert!(s.prefetch(g2.clone(), &style));
        assert!(!s.prefetch(Rc::new(chain(3)), &style), "already queued (equal content)");
        s.request(g3.clone(), &style, "now");
        // The request goes first although it came last.
        let first = s.next_start().unwrap();
        assert_eq!(first.graph.nodes.len(), 5);
        assert_eq!(s.finish(first.job, layout(&first.graph, &first.style)).1, ["now"]);
        assert!(!s.prefetch(g3.clone(), &style), "cached");
        // Then the prefetches, in the order asked; nobody is called back, the cache fills.
        assert!(run(&mut s).is_empty());
        assert!(run(&mut s).is_empty());
        assert!(s.lookup(&g1, &style).is_some() && s.lookup(&g2, &style).is_some());
        assert_eq!(s.pending(), 0);
    }

    #[test]
    fn a_request_takes_over_a_queued_or_running_prefetch() {
        let mut s = Scheduler::new(8);
        let style = Style::default();
        let (g1, g2) = (Rc::new(chain(3)), Rc::new(chain(4)));
        s.prefetch(g1.clone(), &style);
        s.prefetch(g2.clone(), &style);
        let running = s.next_start().unwrap();
        assert_eq!(running.graph.nodes.len(), 3);
        // g2 is wanted now: its queued prefetch becomes a request (one job, not two)...
        s.request(g2.clone(), &style, "b");
        assert_eq!(s.pending(), 2);
        // ...and g1, running, gets a waiter: an edit no longer lets the backend drop it.
        s.request(g1.clone(), &style, "a");
        assert!(!s.cancel_prefetch());
        assert_eq!(s.finish(running.job, layout(&g1, &style)).1, ["a"]);
        assert_eq!(run(&mut s), ["b"]);
        // A cancelled ticket does not drop a prefetch nobody waited for in the first place.
        let g3 = Rc::new(chain(5));
        s.prefetch(g3.clone(), &style);
        let t = s.request(Rc::new(chain(6)), &style, "c");
        s.cancel(t);
        assert_eq!(s.pending(), 1);
        assert!(run(&mut s).is_empty());
        assert!(s.lookup(&g3, &style).is_some());
    }

    #[test]
    fn an_edit_drops_the_prefetches_and_may_abandon_the_running_one() {
        let mut s = Scheduler::new(8);
        let style = Style::default();
        for n in 3..6 {
            s.prefetch(Rc::new(chain(n)), &style);
        }
        let running = s.next_start().unwrap();
        assert!(s.cancel_prefetch(), "the running prefetch has no waiter");
        s.abandon();
        assert_eq!(s.pending(), 0);
        // Its late result is ignored, and the new program's request starts at once.
        assert!(s.finish(running.job, layout(&running.graph, &running.style)).1.is_empty());
        assert!(s.lookup(&running.graph, &style).is_none());
        s.request(Rc::new(chain(7)), &style, "new");
        assert_eq!(run(&mut s), ["new"]);
    }

    #[test]
    fn a_requeued_job_runs_next_and_keeps_its_waiters() {
        let mut s = Scheduler::new(2);
        let style = Style::default();
        s.request(Rc::new(chain(3)), &style, "a");
        s.request(Rc::new(chain(4)), &style, "b");
        let first = s.next_start().unwrap();
        s.requeue();
        assert_eq!(s.pending(), 2);
        let again = s.next_start().unwrap();
        assert_eq!((again.job, again.graph.nodes.len()), (first.job, 3));
        assert_eq!(s.finish(again.job, layout(&again.graph, &again.style)).1, ["a"]);
        assert_eq!(run(&mut s), ["b"]);
    }
}
