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

/// An empty vector with room for `capacity` items, whose storage the kernel is asked to back with 2 MiB pages
/// where it spans whole ones (a hint: no effect on results). The state a large fabric's packet-hops touch (a
/// k = 32 fat-tree's ports: 12.5 MB) spreads over thousands of 4 KiB pages, more than the TLB holds; on
/// Linux with transparent huge pages on request (`madvise`, the usual default) nothing is merged unless asked.
pub fn vec_on_huge_pages<T>(capacity: usize) -> Vec<T> {
    let v = Vec::with_capacity(capacity);
    advise_huge_pages(v.as_ptr() as usize, v.capacity() * std::mem::size_of::<T>());
    v
}

/// `items` gathered into a vector from `vec_on_huge_pages`.
pub fn collect_on_huge_pages<T>(items: impl ExactSizeIterator<Item = T>) -> Vec<T> {
    let mut v = vec_on_huge_pages(items.len());
    v.extend(items);
    v
}

/// Ask for 2 MiB pages over the whole ones within `bytes` from `start`, before they are first touched.
fn advise_huge_pages(start: usize, bytes: usize) {
    const HUGE: usize = 2 << 20;
    let first = (start + HUGE - 1) & !(HUGE - 1);
    let end = start.saturating_add(bytes) & !(HUGE - 1);
    if end <= first {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const MADV_HUGEPAGE: i32 = 14;
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        // SAFETY: the range lies within one live allocation and is page-aligned; the advice changes how pages
        // are backed, never their contents, and a refusal (no huge pages on this kernel) is harmless.
        unsafe {
            madvise(first as *mut std::ffi::c_void, end - first, MADV_HUGEPAGE);
        }
    }
}
