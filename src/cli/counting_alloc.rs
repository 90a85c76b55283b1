//! The global allocator of the binary: mimalloc (faster than glibc's malloc
//! on the passes' many small allocations; see ARCHITECTURE.md,
//! "Dependencies"), which also counts the bytes in use and their peak for
//! `bench-out-of-ssa` and `bench-construction` (a relaxed atomic add per
//! allocation, only once one of those commands enables it). `main.rs` installs it with `#[global_allocator]`.

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Off except in the benchmarks: counting on every allocation from
/// several threads would make them fight over the counters' cache line.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Starts counting (for the rest of the process).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to mimalloc unchanged; the
// counters are only statistics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { MiMalloc.alloc(layout) };
        if !p.is_null() && ENABLED.load(Ordering::Relaxed) {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { MiMalloc.dealloc(ptr, layout) };
        if ENABLED.load(Ordering::Relaxed) {
            CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's arguments.
        let p = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if !p.is_null() && ENABLED.load(Ordering::Relaxed) {
            if new_size >= layout.size() {
                let now = CURRENT.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size - layout.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

/// Bytes in use now.
pub fn current() -> usize {
    CURRENT.load(Ordering::Relaxed)
}

/// Restarts the peak from the bytes in use now.
pub fn reset_peak() {
    PEAK.store(CURRENT.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// The most bytes in use since the last reset.
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}
