#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    tessera::util::alloc::keep_freed_memory();
    // Rust ignores SIGPIPE, so a print to a closed pipe (`tessera fmax ... | head -1`) would
    // panic; with the default action the command ends quietly, as command-line tools do.
    #[cfg(unix)]
    // SAFETY: called once, before any thread starts, with a valid signal and handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(tessera::cli::main());
}
