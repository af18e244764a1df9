//! Named steps of a hook run, for the reliability tests and the benchmark.
//!
//! A machine under heavy load stalls a hook anywhere: between its steps, inside an fsync that
//! holds the spool's lock, before the store answers. `ALETHEIA_TEST_STALL=step:ms[,step:ms…]`
//! makes a debug build sleep that long at each named step, so a test can put the stall exactly
//! where it wants and show that nothing is lost. Release builds compile the stall to nothing.
//!
//! The same steps split a run's time: with `ALETHEIA_HOOK_PHASES` set (any value), each step
//! reached is timed and [`report`] prints one line on stderr, `aletheia phases: step=ns …`, the
//! wall-clock nanoseconds since the epoch at each step, so `scripts/bench --hook-breakdown` can
//! set them against the moment it spawned the process and the moment it reaped it. Unset, a
//! step costs one look at a flag read once.

use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

/// Each step reached, with its wall-clock time in nanoseconds since the epoch.
type Steps = Mutex<Vec<(&'static str, u128)>>;

/// The steps reached so far, when `ALETHEIA_HOOK_PHASES` asks for them.
static PHASES: OnceLock<Option<Steps>> = OnceLock::new();

fn phases() -> Option<&'static Steps> {
    PHASES
        .get_or_init(|| {
            std::env::var_os("ALETHEIA_HOOK_PHASES").map(|_| Mutex::new(Vec::with_capacity(16)))
        })
        .as_ref()
}

/// The run has reached `step`: time it if asked, and stall there as long as
/// `ALETHEIA_TEST_STALL` says (debug builds only).
pub fn at(step: &'static str) {
    if let Some(p) = phases() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        if let Ok(mut p) = p.lock() {
            p.push((step, now));
        }
    }
    stall(step);
}

/// Print the timed steps on stderr, if `ALETHEIA_HOOK_PHASES` asked for them.
pub fn report() {
    if let Some(p) = phases()
        && let Ok(p) = p.lock()
    {
        let steps: Vec<String> = p.iter().map(|(s, ns)| format!("{s}={ns}")).collect();
        crate::capture::hook::say(&format!("aletheia phases: {}", steps.join(" ")));
    }
}

#[cfg(debug_assertions)]
fn stall(step: &str) {
    let Ok(spec) = std::env::var("ALETHEIA_TEST_STALL") else {
        return;
    };
    for part in spec.split(',') {
        if let Some((name, ms)) = part.split_once(':')
            && name.trim() == step
            && let Ok(ms) = ms.trim().parse()
        {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
    }
}

/// Release builds never stall.
#[cfg(not(debug_assertions))]
#[inline(always)]
fn stall(_step: &str) {}
