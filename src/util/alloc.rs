//! Options of the mimalloc allocator the `tessera` binary (and its benches) use.

/// mimalloc's `mi_option_purge_delay` (`mimalloc.h`; libmimalloc-sys names no constant
/// for it under mimalloc 3): how many milliseconds freed memory waits before it is
/// returned to the OS, `-1` for never.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Makes mimalloc keep the memory it frees instead of returning it to the OS. `explore`
/// builds and drops a stream graph of hundreds of megabytes per slowdown; memory returned
/// after each one comes back as fresh pages the kernel zeroes again (12% of
/// `tessera explore examples/first_layer_pyr.seq`'s CPU time, nearly all of its system
/// time). The process then keeps its peak memory until it ends. Call it first in `main`,
/// before any thread starts (mimalloc's options are not thread-safe); it does nothing
/// when mimalloc is not the global allocator.
pub fn keep_freed_memory() {
    // SAFETY: setting an option is a plain store; called before other threads exist.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
}
