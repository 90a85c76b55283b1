//! How every benchmark and `ssaref reproduce` measure: the clocks (wall
//! time and the calling thread's CPU time), the peak-memory probe, the
//! median, and interleaved repeated runs.
//!
//! Interleaving: each configuration of a comparison runs once per
//! repetition, in turn, so that a change in the machine's load hits all of
//! them alike, and a ratio is of two medians from the same run. Short runs
//! are preceded by one untimed run of each configuration (caches, allocator
//! pools, page faults of first use). Peak memory is the most bytes in use
//! during one run above what was in use before it, as counted by the
//! caller's [`MemoryProbe`]: the library has no allocator of its own to
//! ask (the binary counts the bytes its allocator hands out,
//! `cli/counting_alloc.rs`).
//!
//! The median of an even number of samples is the mean of the two middle
//! ones (see [`median`]), so it does not depend on which of the two a
//! sort happens to put first and is symmetric between fast and slow
//! outliers.

use crate::evaluation::eval_error::EvalError;
use std::any::Any;
use std::time::{Duration, Instant};

/// CPU time of the calling thread, in seconds
/// (`pass_manager::clock::thread_cpu_time`, `CLOCK_THREAD_CPUTIME_ID`):
/// unlike wall time, it does not count the time the thread waits for a core
/// on a loaded machine. 0 if the clock cannot be read.
pub fn thread_cpu_seconds() -> f64 {
    crate::pass_manager::clock::thread_cpu_time().as_secs_f64()
}

/// Both clocks started together: wall time and the thread's CPU time.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch {
    wall: Instant,
    cpu: f64,
}

impl Stopwatch {
    /// Starts both clocks now.
    pub fn start() -> Stopwatch {
        Stopwatch { wall: Instant::now(), cpu: thread_cpu_seconds() }
    }

    /// Wall time since the start, in seconds.
    pub fn wall_seconds(&self) -> f64 {
        self.wall.elapsed().as_secs_f64()
    }

    /// CPU time of the calling thread since the start, in seconds (the
    /// stopwatch must be read on the thread that started it).
    pub fn cpu_seconds(&self) -> f64 {
        thread_cpu_seconds() - self.cpu
    }
}

/// The median of `xs`: the middle sample of an odd count, the mean of the
/// two middle samples of an even count, 0 for none.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The median of `xs` as [`median`] defines it, `None` for none.
pub fn median_duration(xs: &[Duration]) -> Option<Duration> {
    let mut v = xs.to_vec();
    v.sort();
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2),
    }
}

/// The smallest and the largest of `xs`, `(0, 0)` for none.
pub fn min_max(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

/// Bytes in use and their peak, as counted by the caller's allocator.
pub trait MemoryProbe {
    /// Bytes in use now.
    fn current(&self) -> usize;
    /// Restarts the peak from the bytes in use now.
    fn reset_peak(&self);
    /// The largest number of bytes in use since the last `reset_peak`.
    fn peak(&self) -> usize;
}

/// A probe that measures nothing (every figure 0), for callers without a
/// counting allocator.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMemoryProbe;

impl MemoryProbe for NoMemoryProbe {
    fn current(&self) -> usize {
        0
    }
    fn reset_peak(&self) {}
    fn peak(&self) -> usize {
        0
    }
}

/// The timed runs of one configuration, in run order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timing {
    /// Wall time of each run, in seconds.
    pub seconds: Vec<f64>,
    /// CPU time of the running thread in each run, in seconds.
    pub cpu_seconds: Vec<f64>,
    /// Peak bytes above the bytes in use at the start, of each run.
    pub peak_bytes: Vec<usize>,
}

impl Timing {
    /// Median wall time in seconds.
    pub fn median(&self) -> f64 {
        median(&self.seconds)
    }

    /// Median thread CPU time in seconds.
    pub fn cpu_median(&self) -> f64 {
        median(&self.cpu_seconds)
    }

    /// The largest peak over the runs, in bytes.
    pub fn max_peak_bytes(&self) -> usize {
        self.peak_bytes.iter().copied().max().unwrap_or(0)
    }

    /// The median peak over the runs, in bytes.
    pub fn median_peak_bytes(&self) -> f64 {
        let v: Vec<f64> = self.peak_bytes.iter().map(|&b| b as f64).collect();
        median(&v)
    }
}

/// A timed run: does the work and hands back what it built, which is
/// dropped after the clocks stop.
pub type Run<'a> = Box<dyn FnMut() -> Result<Box<dyn Any>, EvalError> + 'a>;

/// Runs that take less than this are preceded by one untimed run of each
/// configuration.
pub const WARM_UP_BELOW_SECONDS: f64 = 1.0;

/// Runs every configuration `repeat` times (at least once), interleaved
/// (one run of each per repetition), and returns their timings in order.
/// The first configuration's first run is untimed; if it took less than
/// [`WARM_UP_BELOW_SECONDS`], every other configuration gets an untimed run
/// too. An error of a run stops the measurement.
pub fn interleaved(repeat: usize, probe: &dyn MemoryProbe, runs: &mut [Run<'_>]) -> Result<Vec<Timing>, EvalError> {
    interleaved_prepared(repeat, probe, &mut |_| {}, runs)
}

/// [`interleaved`], calling `prepare(i)` before each run of configuration
/// `i` (the untimed ones too), outside its timed region and before the peak
/// memory is reset: for work the run needs done but must not time, such as
/// copying its input.
pub fn interleaved_prepared(
    repeat: usize,
    probe: &dyn MemoryProbe,
    prepare: &mut dyn FnMut(usize),
    runs: &mut [Run<'_>],
) -> Result<Vec<Timing>, EvalError> {
    let mut out = vec![Timing::default(); runs.len()];
    let start = Instant::now();
    if let Some(first) = runs.first_mut() {
        prepare(0);
        drop(first()?);
    }
    if start.elapsed().as_secs_f64() < WARM_UP_BELOW_SECONDS {
        for (i, run) in runs.iter_mut().enumerate().skip(1) {
            prepare(i);
            drop(run()?);
        }
    }
    for _ in 0..repeat.max(1) {
        for (i, (run, t)) in runs.iter_mut().zip(out.iter_mut()).enumerate() {
            prepare(i);
            probe.reset_peak();
            let base = probe.current();
            let clock = Stopwatch::start();
            let kept = run()?;
            t.cpu_seconds.push(clock.cpu_seconds());
            t.seconds.push(clock.wall_seconds());
            t.peak_bytes.push(probe.peak().saturating_sub(base));
            drop(kept);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty_counts() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0]), 3.0);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        // Even: the mean of the two middles, not the upper or lower one.
        assert_eq!(median(&[4.0, 1.0, 2.0, 10.0]), 3.0);
        let d = |ms: u64| Duration::from_millis(ms);
        assert_eq!(median_duration(&[]), None);
        assert_eq!(median_duration(&[d(9), d(1), d(5)]), Some(d(5)));
        assert_eq!(median_duration(&[d(4), d(1), d(2), d(10)]), Some(d(3)));
    }

    #[test]
    fn min_max_and_peaks() {
        assert_eq!(min_max(&[]), (0.0, 0.0));
        assert_eq!(min_max(&[2.0, -1.0, 7.5]), (-1.0, 7.5));
        let t = Timing { seconds: vec![], cpu_seconds: vec![], peak_bytes: vec![10, 40, 20, 30] };
        assert_eq!(t.max_peak_bytes(), 40);
        assert_eq!(t.median_peak_bytes(), 25.0);
    }

    #[test]
    fn interleaved_runs_each_configuration_in_turn() {
        let order = std::cell::RefCell::new(Vec::new());
        let mut runs: Vec<Run<'_>> = (0..3)
            .map(|i| {
                let order = &order;
                Box::new(move || {
                    order.borrow_mut().push(i);
                    Ok(Box::new(()) as Box<dyn Any>)
                }) as Run<'_>
            })
            .collect();
        let timings = interleaved(2, &NoMemoryProbe, &mut runs).unwrap();
        // One warm-up run each (they are fast), then two interleaved rounds.
        assert_eq!(*order.borrow(), vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);
        assert_eq!(timings.len(), 3);
        for t in &timings {
            assert_eq!((t.seconds.len(), t.cpu_seconds.len(), t.peak_bytes.len()), (2, 2, 2));
            assert!(t.seconds.iter().chain(&t.cpu_seconds).all(|&s| s >= 0.0));
        }
    }
}
