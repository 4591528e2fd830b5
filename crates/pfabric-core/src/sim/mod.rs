//! The discrete-event machinery: time, the event queue and random streams. Nothing here knows about networks.
pub mod event;
pub mod rng;
pub mod time;

/// Ask the cache for the line holding `r` ahead of its use (a hint: no effect on results; nothing on targets
/// without a prefetch instruction).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, and `r` is a valid reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(r as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
