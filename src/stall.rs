//! Injected delays for the reliability tests. A machine under heavy load stalls a hook anywhere:
//! between its steps, inside an fsync that holds the spool's lock, before the store answers.
//! `ALETHEIA_TEST_STALL=step:ms[,step:ms…]` makes a debug build sleep that long at each named
//! step, so a test can put the stall exactly where it wants and show that nothing is lost. Release
//! builds compile every call to nothing, so the variable does nothing there.

/// Sleep at `step` for as long as `ALETHEIA_TEST_STALL` says (debug builds only).
#[cfg(debug_assertions)]
pub fn at(step: &str) {
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
pub fn at(_step: &str) {}
