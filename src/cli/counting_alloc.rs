//! The global allocator of the binary: mimalloc (faster than glibc's malloc
//! on the passes' many small allocations; see ARCHITECTURE.md,
//! "Dependencies"), which also counts the bytes in use and their peak, for
//! `bench-out-of-ssa` and `bench-construction`, and enforces the memory
//! limit of `--max-memory` (`run`, `check`, `emit`). Counting costs a
//! relaxed atomic add per allocation and is off until one of those commands
//! turns it on. `main.rs` installs it with `#[global_allocator]`.
//!
//! What is counted: the sizes of the allocations Rust code asks for, not the
//! resident set. Allocator overhead, stacks, the code itself and memory that
//! C libraries allocate on their own (Unicorn's emulated machine) are not
//! included, so the process may use somewhat more than the limit.
//!
//! The limit is enforced inside `alloc`: an allocation that would take the
//! bytes in use above it is not made; instead `out_of_memory` lifts the
//! limit, removes the production compilers' scratch directories, writes one
//! line to stderr from a fixed buffer with `libc::write` and ends the
//! process with `libc::_exit(EXIT_OUT_OF_MEMORY)`. Apart from that removal,
//! which runs before this thread enters mimalloc, nothing on that path
//! allocates, takes a lock, unwinds or runs destructors; whatever `print!`
//! still buffers is lost, which is why the commands build their output first.
//! An allocation that the operating system refuses (`prlimit --as`, a
//! cgroup) ends the process the same way, with its own line, instead of
//! Rust's abort: Rust code here never recovers from a failed allocation.

use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};

/// Exit code of a process stopped by the memory limit (`--max-memory`).
/// `common.rs` lists it with the other exit codes.
pub const EXIT_OUT_OF_MEMORY: u8 = 5;

pub struct Counting;

/// Bytes in use. Signed: memory allocated before counting started and freed
/// after is subtracted without having been added, so the counter may fall
/// below zero by at most the bytes in use when counting started (a few
/// kilobytes of command-line arguments); it never wraps around.
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
/// Off except in the commands that need it: counting on every allocation
/// from several threads would make them fight over the counters' cache line
/// (`ssaref fuzz`).
static ENABLED: AtomicBool = AtomicBool::new(false);
/// The limit in bytes; 0 for none.
static LIMIT: AtomicUsize = AtomicUsize::new(0);
/// Set by the first thread that hits the limit, so that only one reports.
static REPORTING: AtomicBool = AtomicBool::new(false);

/// Starts counting (for the rest of the process).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Starts counting and stops the process, with `EXIT_OUT_OF_MEMORY`, when
/// an allocation would take the bytes in use above `bytes`; 0 means no
/// limit (counting stays off then).
pub fn set_limit(bytes: u64) {
    if bytes == 0 {
        return;
    }
    LIMIT.store(usize::try_from(bytes).unwrap_or(usize::MAX), Ordering::Relaxed);
    enable();
}

/// Adds `size` bytes to the count (an allocation about to be made) and
/// stops the process if that crosses the limit.
#[inline]
fn add(size: usize) {
    let size = isize::try_from(size).unwrap_or(isize::MAX);
    let now = CURRENT.fetch_add(size, Ordering::Relaxed).saturating_add(size);
    PEAK.fetch_max(now, Ordering::Relaxed);
    let limit = LIMIT.load(Ordering::Relaxed);
    if limit != 0 && now > 0 && now as usize > limit {
        out_of_memory(limit, size as usize, (now - size).max(0) as usize);
    }
}

#[inline]
fn sub(size: usize) {
    CURRENT.fetch_sub(isize::try_from(size).unwrap_or(isize::MAX), Ordering::Relaxed);
}

/// Appends `s` to `buf` at `*len`, as far as it fits.
fn put(buf: &mut [u8], len: &mut usize, s: &[u8]) {
    for &c in s {
        if *len < buf.len() {
            buf[*len] = c;
            *len += 1;
        }
    }
}

/// Appends `n` in decimal, without allocating.
fn put_number(buf: &mut [u8], len: &mut usize, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    put(buf, len, &digits[i..]);
}

/// The report of an allocation of `size` bytes, with `in_use` bytes in use,
/// refused by `limit`: one line in `buf`, whose length is returned.
fn format_report(buf: &mut [u8], limit: usize, size: usize, in_use: usize) -> usize {
    const MIB: usize = 1 << 20;
    let mut len = 0;
    put(buf, &mut len, b"ssaref: memory limit of ");
    put_number(buf, &mut len, limit / MIB);
    put(buf, &mut len, b" MiB exceeded (an allocation of ");
    put_number(buf, &mut len, size);
    put(buf, &mut len, b" bytes with ");
    put_number(buf, &mut len, in_use / MIB);
    put(buf, &mut len, b" MiB in use); raise it with --max-memory\n");
    len
}

/// The report of an allocation of `size` bytes that the operating system
/// refused: one line in `buf`, whose length is returned.
fn format_refusal(buf: &mut [u8], size: usize) -> usize {
    let mut len = 0;
    put(buf, &mut len, b"ssaref: the operating system refused an allocation of ");
    put_number(buf, &mut len, size);
    put(buf, &mut len, b" bytes (a limit on memory or address space, such as prlimit --as)\n");
    len
}

/// Reports the allocation refused by `--max-memory` on stderr and ends
/// the process, after removing the scratch directories of the production
/// compilers: the limit is lifted for that (nothing else runs on this
/// thread any more, and the thread is not inside mimalloc here).
#[cold]
fn out_of_memory(limit: usize, size: usize, in_use: usize) -> ! {
    let mut buf = [0u8; 200];
    let len = format_report(&mut buf, limit, size, in_use);
    if !REPORTING.load(Ordering::SeqCst) {
        LIMIT.store(0, Ordering::SeqCst);
        ssaref::targets::native::remove_scratch_of_this_process();
    }
    report_and_exit(&buf[..len])
}

/// Reports an allocation of `size` bytes that the underlying allocator
/// could not make (the operating system refused the memory) and ends the
/// process with the exit code of `--max-memory`: the same class of
/// failure, a resource and not the input, instead of Rust's abort.
#[cold]
fn refused(size: usize) -> ! {
    let mut buf = [0u8; 200];
    let len = format_refusal(&mut buf, size);
    report_and_exit(&buf[..len])
}

/// Writes `line` to stderr and ends the process with `EXIT_OUT_OF_MEMORY`.
/// Safe to call from inside the allocator: no allocation, no lock, no
/// unwinding.
fn report_and_exit(line: &[u8]) -> ! {
    if REPORTING.swap(true, Ordering::SeqCst) {
        // Another thread is reporting and will end the process.
        loop {
            // SAFETY: `pause` only waits for a signal.
            unsafe { libc::pause() };
        }
    }
    // SAFETY: `line` is initialized memory; fd 2 is stderr (a failed write
    // is ignored: there is nothing left to do); and `_exit` ends the
    // process without running any Rust or C cleanup.
    unsafe {
        libc::write(2, line.as_ptr().cast(), line.len());
        libc::_exit(i32::from(EXIT_OUT_OF_MEMORY));
    }
}

// SAFETY: every call is forwarded to mimalloc unchanged, or, past the
// limit or refused, never returns; the counters are only statistics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let counting = ENABLED.load(Ordering::Relaxed);
        if counting {
            add(layout.size());
        }
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { MiMalloc.alloc(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let counting = ENABLED.load(Ordering::Relaxed);
        if counting {
            add(layout.size());
        }
        // SAFETY: forwarded with the caller's layout (mimalloc's zeroed
        // allocation, which gets fresh pages without writing them).
        let p = unsafe { MiMalloc.alloc_zeroed(layout) };
        if p.is_null() {
            refused(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { MiMalloc.dealloc(ptr, layout) };
        if ENABLED.load(Ordering::Relaxed) {
            sub(layout.size());
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let counting = ENABLED.load(Ordering::Relaxed);
        let old = layout.size();
        if counting && new_size > old {
            add(new_size - old);
        }
        // SAFETY: forwarded with the caller's arguments.
        let p = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if p.is_null() {
            refused(new_size);
        }
        if counting && new_size < old {
            sub(old - new_size);
        }
        p
    }
}

/// Bytes in use now.
pub fn current() -> usize {
    CURRENT.load(Ordering::Relaxed).max(0) as usize
}

/// Restarts the peak from the bytes in use now.
pub fn reset_peak() {
    PEAK.store(CURRENT.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// The most bytes in use since the last reset.
pub fn peak() -> usize {
    PEAK.load(Ordering::Relaxed).max(0) as usize
}

/// This allocator as the library's memory probe (`bench-out-of-ssa`,
/// `reproduce`).
pub struct CountingProbe;

impl ssaref::evaluation::timing::MemoryProbe for CountingProbe {
    fn current(&self) -> usize {
        current()
    }
    fn reset_peak(&self) {
        reset_peak()
    }
    fn peak(&self) -> usize {
        peak()
    }
}

#[cfg(test)]
mod tests {
    use super::format_report;

    #[test]
    fn a_refusal_is_one_line_with_its_size() {
        let mut buf = [0u8; 200];
        let len = super::format_refusal(&mut buf, 4096);
        assert_eq!(
            std::str::from_utf8(&buf[..len]).unwrap(),
            "ssaref: the operating system refused an allocation of 4096 bytes \
             (a limit on memory or address space, such as prlimit --as)\n"
        );
    }

    #[test]
    fn the_report_is_one_line_with_the_limit_in_mib() {
        let mut buf = [0u8; 200];
        let len = format_report(&mut buf, 512 << 20, 1_048_576, 511 << 20);
        assert_eq!(
            std::str::from_utf8(&buf[..len]).unwrap(),
            "ssaref: memory limit of 512 MiB exceeded (an allocation of 1048576 bytes with 511 MiB in use); \
             raise it with --max-memory\n"
        );
    }
}
