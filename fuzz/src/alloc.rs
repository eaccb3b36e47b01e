//! A counting global allocator: the memory cap of one fuzz input.
//!
//! Rust offers no way to recover from a failed allocation (the allocator must not unwind and
//! `set_alloc_error_hook` is unstable), so the cap is enforced by failing the allocation —
//! the worker process then aborts with "memory allocation … failed" — and the parent
//! process, which sees its worker die, counts the input as an abort and starts a new worker.
//! Before failing, the allocator names the stage that asked, so the report says where.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// `usize::MAX` until the worker sets it: the parent process is not capped.
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Index into [`crate::stages::STAGES`] of the stage running now.
pub static STAGE: AtomicUsize = AtomicUsize::new(0);

pub fn set_cap(bytes: usize) {
    CAP.store(bytes, Relaxed);
}

/// Starts a new peak measurement from the current live bytes.
pub fn reset_peak() {
    PEAK.store(CURRENT.load(Relaxed), Relaxed);
}

pub fn peak() -> usize {
    PEAK.load(Relaxed)
}

fn over_cap(size: usize) -> bool {
    let now = CURRENT.fetch_add(size, Relaxed) + size;
    if now > CAP.load(Relaxed) {
        CURRENT.fetch_sub(size, Relaxed);
        // No allocation here: a fixed message, written unbuffered.
        let stage = crate::stages::STAGES.get(STAGE.load(Relaxed)).copied().unwrap_or("?");
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(b"fuzz: memory cap exceeded in stage ");
        let _ = err.write_all(stage.as_bytes());
        let _ = err.write_all(b"\n");
        return true;
    }
    PEAK.fetch_max(now, Relaxed);
    false
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if over_cap(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            CURRENT.fetch_sub(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if over_cap(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            CURRENT.fetch_sub(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Relaxed);
        // SAFETY: `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && over_cap(new_size - layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged to the system allocator.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            if new_size > layout.size() {
                CURRENT.fetch_sub(new_size - layout.size(), Relaxed);
            }
        } else if new_size < layout.size() {
            CURRENT.fetch_sub(layout.size() - new_size, Relaxed);
        }
        p
    }
}
