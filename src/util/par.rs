//! A deterministic parallel map: results come back in input order whatever the thread
//! interleaving, so parallel work never changes an output byte.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The stack of each worker thread.
const STACK: usize = 8 << 20;

/// Applies `f` to every item on up to `available_parallelism` threads and returns the
/// results in the items' order. Items are taken in order, so put the longest first.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            // The main thread's stack size (8 MiB) rather than the 2 MiB default: headroom
            // only, as the passes keep their recursion bounded (docs/scheduling.md, Known
            // limits).
            std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(scope, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    slots.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                })
                .expect("a worker thread");
        }
    });
    slots
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item was mapped"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::par_map;

    #[test]
    fn keeps_the_input_order() {
        let items: Vec<u64> = (0..100).collect();
        let got = par_map(&items, |x| x * x);
        assert_eq!(got, items.iter().map(|x| x * x).collect::<Vec<_>>());
        assert!(par_map(&[] as &[u64], |x| *x).is_empty());
    }
}
